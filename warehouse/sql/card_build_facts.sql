-- What recommend needs of each card beyond the ranking to build a setup of it: its catalog segment
-- (the class whose measured multi-GPU scaling stands for it), its slot width and compute capability.
-- $models: the cards asked about (the ranked ones and the ones a benchmark ran on several GPUs).
SELECT model, segment, slot_width, compute_capability
FROM gpus
WHERE list_contains(CAST($models AS VARCHAR[]), model);
