-- Each catalog card's vendor: the combining tells a harness's ROCm runs apart by it where a figure
-- does not name its ROCm version.
SELECT model, vendor FROM gpus WHERE vendor IS NOT NULL;
