"""Builds the shipped replay archive from saved real pages.

Usage: ``python -m gpuvalue.scrapers.replay_build FIXTURES_DIR [OUT_DIR]`` where FIXTURES_DIR holds
the saved pages (specs/, listings/, perf/) described in the archive's PROVENANCE.md. Every
recording is stored under the exact URL the live code requests, with its capture date as
``fetched_at``, so a replay run never presents an old price as today's.
"""

from __future__ import annotations

import json
import shutil
import sys
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path

from gpuvalue.flows.settings import DEFAULT_EBAY_QUERIES
from gpuvalue.models.records import FetchedPage
from gpuvalue.scrapers.archive import Archive, sha256_hex

# Browse API responses saved as bare item arrays: (file slug, live query, capture date, provenance).
_GPUAGENT = "activescott/gpu-agent"
_BROWSE = [
    ("nvidia-geforce-rtx-4070", "NVIDIA GeForce RTX 4070", "2025-11-25", "384ca734a8ec1e989dd3568287da68f081aafd83"),
    ("nvidia-geforce-rtx-4070-ti", "NVIDIA GeForce RTX 4070 Ti", "2025-11-25", "384ca734a8ec1e989dd3568287da68f081aafd83"),
    ("nvidia-geforce-rtx-4080", "NVIDIA GeForce RTX 4080", "2025-11-25", "384ca734a8ec1e989dd3568287da68f081aafd83"),
    ("nvidia-geforce-rtx-5070-ti", "NVIDIA GeForce RTX 5070 Ti", "2025-11-25", "384ca734a8ec1e989dd3568287da68f081aafd83"),
    ("nvidia-geforce-rtx-5080", "NVIDIA GeForce RTX 5080", "2025-11-25", "384ca734a8ec1e989dd3568287da68f081aafd83"),
    ("nvidia-geforce-rtx-5090", "NVIDIA GeForce RTX 5090", "2025-11-25", "384ca734a8ec1e989dd3568287da68f081aafd83"),
    ("amd-radeon-rx-7600-xt", "AMD Radeon RX 7600 XT", "2025-11-25", "384ca734a8ec1e989dd3568287da68f081aafd83"),
    ("nvidia-geforce-rtx-4090", "NVIDIA GeForce RTX 4090", "2023-12-05", "60fd744567741b93b4641ff4c6121e5107c56118"),
    ("amd-radeon-rx-7700-xt", "AMD Radeon RX 7700 XT", "2024-01-17", "97f6fafff3d4f150e7dcbba4c4324539f2419f56"),
    ("amd-radeon-rx-7800-xt", "AMD Radeon RX 7800 XT", "2024-01-17", "97f6fafff3d4f150e7dcbba4c4324539f2419f56"),
    ("amd-radeon-rx-7900-xt", "AMD Radeon RX 7900 XT", "2023-12-13", "0c9f054a28bef7d27a6ecf14cb1cdc9b1632a374"),
    ("amd-radeon-rx-7900-xtx", "AMD Radeon RX 7900 XTX", "2023-12-13", "0c9f054a28bef7d27a6ecf14cb1cdc9b1632a374"),
    ("amd-radeon-rx-590", "AMD Radeon RX 590", "2023-12-13", "0c9f054a28bef7d27a6ecf14cb1cdc9b1632a374"),
    ("amd-radeon-rx-580x", "AMD Radeon RX 580X", "2023-12-13", "0c9f054a28bef7d27a6ecf14cb1cdc9b1632a374"),
    ("nvidia-rtx-a5000", "NVIDIA RTX A5000", "2023-12-02", "7638790d82f50c888bc45d5767767a323d0b3c7a"),
    ("nvidia-a30", "NVIDIA A30", "2023-12-02", "7638790d82f50c888bc45d5767767a323d0b3c7a"),
    ("nvidia-a40", "NVIDIA A40", "2023-12-02", "7638790d82f50c888bc45d5767767a323d0b3c7a"),
    ("nvidia-a100-pcie", "NVIDIA A100 PCIe", "2023-12-02", "7638790d82f50c888bc45d5767767a323d0b3c7a"),
    ("nvidia-h100-pcie", "NVIDIA H100 PCIe", "2023-12-02", "7638790d82f50c888bc45d5767767a323d0b3c7a"),
    ("nvidia-t4", "NVIDIA T4", "2023-12-21", "fac714bbb6d70abb7426b4f29e19190a4b932992"),
    ("nvidia-a10", "NVIDIA A10", "2023-12-21", "fac714bbb6d70abb7426b4f29e19190a4b932992"),
    ("nvidia-a100-sxm", "NVIDIA A100 SXM", "2023-12-03", "b949fb463c907a2aa2942cfa30cb643df672f13b"),
    ("nvidia-h100-sxm", "NVIDIA H100 SXM", "2023-12-03", "85ffb0f67db6bbdd569ef292e772983266760c07"),
    ("nvidia-l4", "NVIDIA L4", "2023-12-03", "04d8d54934c1a6eb1a3dbff9644089c6d1a5756e"),
    ("nvidia-l40", "NVIDIA L40", "2023-12-03", "04d8d54934c1a6eb1a3dbff9644089c6d1a5756e"),
    ("nvidia-l40s", "NVIDIA L40S", "2023-12-03", "04d8d54934c1a6eb1a3dbff9644089c6d1a5756e"),
    ("nvidia-tesla-p100", "NVIDIA Tesla P100", "2024-01-11", "7dfd21aef1f41324878ebece98c6cfaf2498a29a"),
    ("nvidia-tesla-v100-16gb", "NVIDIA Tesla V100 16GB", "2024-01-11", "37c288f65b3f1eaa0e8d4d972901cd90b75bbe44"),
    ("nvidia-tesla-v100-32gb", "NVIDIA Tesla V100 32GB", "2024-01-11", "37c288f65b3f1eaa0e8d4d972901cd90b75bbe44"),
]

_TPU = [
    (2016, "c80aba267900176153be901bab39790f91d4ddd3"),
    (2020, "f8f1d8fb7e39db4d3e7b7b2d9f65f4ce4dd0a5ee"),
    (2022, "d7d72ef591abbc87d487878538119a89fd3bdabd"),
    (2023, "879a66543056175debd1d44bc22309fb67fc640b"),
]
_TPU_COMMIT = "279bceca3d26ecc118043d36d531f1a79cc2a467"

_LAMBDA = {
    "lambda-pytorch-2024-fp16": ("perf/lambda_dlb_pytorch_2024_train_throughput_fp16.csv", "lambdal/deeplearning-benchmark@aa5addb6a53675a649a80036dad548f1c27cbcc4:pytorch/pytorch-train-throughput-fp16.csv (2024-07-24)"),
    "lambda-pytorch-2024-fp32": ("perf/lambda_dlb_pytorch_2024_train_throughput_fp32.csv", "lambdal/deeplearning-benchmark@aa5addb6a53675a649a80036dad548f1c27cbcc4:pytorch/pytorch-train-throughput-fp32.csv (2024-07-24)"),
    # Lambda's first PyTorch tables: the copies shipped in models/data (not in the fixtures).
    "lambda-pytorch-v1-fp16": ("package:lambda_pytorch_v1_train_throughput_fp16.csv", "lambdal/deeplearning-benchmark@000bc82d31cbad9fc52fa3c1dadce9a4034790f9:pytorch-train-throughput-fp16.csv (newest run 2021-02-05)"),
    "lambda-pytorch-v1-fp32": ("package:lambda_pytorch_v1_train_throughput_fp32.csv", "lambdal/deeplearning-benchmark@84fd0478d071ef3f572c2024ab71f6baee4fd839:pytorch-train-throughput-fp32.csv (newest run 2021-02-05)"),
    "lambda-pytorch-2021mid-fp16": ("package:lambda_pytorch_2021mid_train_throughput_fp16.csv", "lambdal/deeplearning-benchmark@b177e19c7405fd9b1d562363f53538081972973c:pytorch/pytorch-train-throughput-fp16.csv (newest run 2021-06-28)"),
    "lambda-pytorch-2021mid-fp32": ("package:lambda_pytorch_2021mid_train_throughput_fp32.csv", "lambdal/deeplearning-benchmark@71b30158fb0b46ff392ab7157d2035823dfc6a30:pytorch/pytorch-train-throughput-fp32.csv (newest run 2021-06-28)"),
    "lambda-tf-2021-fp16": ("perf/lambda_tf_2021_train_throughput_fp16.csv", "LambdaColdStorage/lambda-tensorflow-benchmark@e086e0e7d88a19991642d0774793693d4b7cbe46:tf-train-throughput-fp16.csv (2021-10-30)"),
    "lambda-tf-2021-fp32": ("perf/lambda_tf_2021_train_throughput_fp32.csv", "LambdaColdStorage/lambda-tensorflow-benchmark@e086e0e7d88a19991642d0774793693d4b7cbe46:tf-train-throughput-fp32.csv (2021-10-30)"),
}


# Derived: the README's markdown tables and headings only (its prose and images were not saved).
_LLAMACPP = "perf/xiongjiedai_llamacpp_llama3_tokens_per_s_2024.md"


def _at(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(tzinfo=timezone.utc)


def _put(archive: Archive, source: str, url: str, body: bytes, fetched_at: datetime, content_type: str, note: str) -> None:
    page = FetchedPage(source=source, url=url, status=200, fetched_at=fetched_at, sha256=sha256_hex(body),
                       body=body, content_type=content_type)
    archive.put(page, headers={"content-type": content_type}, note=note)


def build(fixtures: Path, out: Path) -> Archive:
    from gpuvalue.scrapers.ebay_browse import browse_search_url
    from gpuvalue.scrapers.lambda_bench import LAMBDA_FILES
    from gpuvalue.scrapers.llamacpp_bench import CONTENT_DATE, PROVENANCE, README_URL
    from gpuvalue.scrapers.techpowerup import listing_url

    if out.exists():
        for child in ("index.jsonl", "bodies"):
            p = out / child
            if p.is_dir():
                shutil.rmtree(p)
            elif p.exists():
                p.unlink()
    archive = Archive(out)

    for year, key in _TPU:
        body = (fixtures / f"specs/techpowerup_gpu-specs_released-{year}_2023-01-09.html").read_bytes()
        _put(archive, "techpowerup", listing_url({"released": str(year), "sort": "name"}), body, _at("2023-01-09"),
             "text/html; charset=UTF-8",
             f"BaraaZ95/Techpowerup-scraper@{_TPU_COMMIT}:.scrapy/httpcache/tpu/{key[:2]}/{key}/response_body "
             "(2023-01-09), gunzipped")

    assert {q for _, q, _, _ in _BROWSE} <= set(DEFAULT_EBAY_QUERIES)
    for slug, query, day, commit in _BROWSE:
        items = json.loads((fixtures / f"listings/ebay_browse_api_gpuagent/search-listings-{slug}.json").read_bytes())
        url = browse_search_url(query)
        envelope = {"href": url, "total": len(items), "limit": 100, "offset": 0, "itemSummaries": items}
        body = json.dumps(envelope, ensure_ascii=False, indent=1).encode("utf-8")
        _put(archive, "ebay-browse", url, body, _at(day), "application/json",
             f"derived: {_GPUAGENT}@{commit}:data/test-data/api-responses/search-listings-{slug}.json ({day}), "
             "a bare itemSummary array wrapped in the Browse API's search envelope")

    for f in LAMBDA_FILES:
        rel, prov = _LAMBDA[f.key]
        if rel.startswith("package:"):
            body = resources.files("gpuvalue.models").joinpath("data", rel.removeprefix("package:")).read_bytes()
        else:
            body = (fixtures / rel).read_bytes()
        _put(archive, "lambda", f.url, body, datetime.combine(f.content_date, datetime.min.time(), timezone.utc),
             "text/plain; charset=utf-8", prov)

    _put(archive, "llamacpp", README_URL, (fixtures / _LLAMACPP).read_bytes(),
         datetime.combine(CONTENT_DATE, datetime.min.time(), timezone.utc), "text/plain; charset=utf-8",
         f"derived: {PROVENANCE}, its markdown tables and headings only")
    return archive


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    from gpuvalue.scrapers.replay import packaged_replay_dir

    out = Path(argv[1]) if len(argv) > 1 else packaged_replay_dir()
    archive = build(Path(argv[0]), out)
    print(f"wrote {sum(1 for _ in archive.entries())} recordings to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
