"""Full Stack Deep Learning's cloud GPU table: on-demand and spot prices of GPU instances at about twenty clouds.

FSDL keeps ``docs/cloud-gpus/cloud-gpus.csv`` in ``the-full-stack/website`` by hand, one row per
instance configuration (AWS, GCP, Azure, Lambda, RunPod, Paperspace, ...). Its git history is the
point: 53 dated versions since August 2022 show how rental prices moved, which a buy-or-rent answer
needs next to today's prices.

Live fetch reads the newest version only: the daily run records what the table says now, which is
what it said on the day it last changed (2025-03-07 for the newest version known here), not on the
day it is read. So the fetch asks GitHub's commits API which commit last changed the file
(``scrapers/github_commits.py``), then reads the file at the raw URL pinned to that commit, dated by
it. Without that answer (rate limited, unreachable) it reads the ``main`` branch file, dated by its
version where the SHA-256 of its bytes is one of ``HISTORY``'s; a version of unknown date is dated by
the newest known version (its prices are at least that old) and said in a warning, never dated by
the day it was read.

The history comes from replay: every committed version is recorded under the raw URL pinned to its
commit, dated by the commit, and the commits API's answer naming the newest (written from the
repository's history); a replay run reads the last version of each commit date, then the newest as a
live run does. ``as_of`` is the commit date of a version pinned to a known commit, else as above.

This source does not read ``serverless-gpus.csv``, the serverless table. Its prices are for GPU time
on inference platforms billed per second of request, with cold starts and no machine to keep, so they
are not offers of an instance like this table's rows; an opt-in source of its own reads it, marked
serverless.

The file was edited by hand for years and shows it: ``$`` prefixes and thousands commas on prices,
blank spot prices, GPU counts and vCPU/RAM given as ranges, a repeated header row, rows with no
price. The parser keeps what is a definite offer, skips the rest with a warning, and refuses a file
whose header lacks a column it needs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path

from gpuvalue.models.cloud_names import memory_from_name
from gpuvalue.models.records import FetchedPage
from gpuvalue.models.rental import RentalOffer
from gpuvalue.models.source_batches import SourceFetch
from gpuvalue.scrapers.csv_table import CsvRow, lines_said, read_csv_table
from gpuvalue.scrapers.github_commits import (
    LastCommit,
    TableDate,
    dated_table_parsers,
    fetch_last_commit,
    last_commit_url,
    raw_url,
    table_date,
)
from gpuvalue.scrapers.source import FetchContext, Recording, Source, at_midnight_utc, page_from_file

NAME = "fsdl-cloud-gpus"

_REPO = "the-full-stack/website"
_PATH = "docs/cloud-gpus/cloud-gpus.csv"
LIVE_URL = raw_url(_REPO, "main", _PATH)
COMMITS_URL = last_commit_url(_REPO, _PATH)  # which commit last changed the file: its date is the table's

REQUIRED_COLUMNS = ("Cloud", "GPU Type", "GPUs", "On-demand", "Per-GPU", "Spot")
OPTIONAL_COLUMNS = ("GPU Arch", "GPU RAM", "vCPUs", "RAM", "Name")

# Every committed version of the file up to the saved snapshot, oldest first: (commit, commit date).
# The fixtures hold each as history/cloud-gpus_<date>_<short hash>.csv, listed in history/commits.txt.
HISTORY: tuple[tuple[str, str], ...] = (
    ("64463be8ccb1aadee2799015fdb0dfd7c8a4edee", "2022-08-04"),
    ("7a2b7ffea2a64c8c0d0164a29e78d530f4bda6b4", "2022-08-05"),
    ("13432d39fe1d8d129d37d03dac835205da019556", "2022-08-05"),
    ("b1db06610d4a275dc4944f0c7c0671fc8cffb5a4", "2022-08-05"),
    ("9543ed8e8b8f1a97fab7ec587fc626e86f911976", "2022-08-05"),
    ("8309cb76d7c3d3398d99c2a43ac95a7a16ff150c", "2022-08-06"),
    ("3c7530647373d898cfbf3ffdce1a462bb87b01bd", "2022-08-08"),
    ("ee9438087f346fa35fd2a91fbe101ea2e9182462", "2022-08-08"),
    ("95e9bdb6724c68a55f635075e771c97ce14afbd6", "2022-08-08"),
    ("7b63feef72ff7dfdc1f64578969f8e5a66fc77b5", "2022-08-11"),
    ("f3dae569a7f37533105fcfa2d372c263ee3640f5", "2022-08-11"),
    ("0c7e8190b964b28b92ba6be2a2890dcc54ef89bc", "2022-08-26"),
    ("a6497fc55b1c2e41fd4495ea0d8d7df1a9fb39f4", "2022-08-26"),
    ("b2ac5dde71ba54b96846d721b79e20f07909d4db", "2022-12-12"),
    ("951b958281b47b976037f89b68dafaf6633d3897", "2023-01-10"),
    ("0c4a04da6e029d4588a57b72a70052f61d3a7bc6", "2023-02-01"),
    ("1de8fdfd44733c64ce9656aed98c5bb41ba1982d", "2023-04-13"),
    ("23400517c84a965d124720909d16864bdd3feebf", "2023-05-12"),
    ("9b08a38b57a5a6548ad28a9df7c3c41e905a3fbf", "2023-05-12"),
    ("6d05ea5e2e220e3e743566bb36cd05e242cad193", "2023-05-20"),
    ("0f46a5d8cccd88b3bcb5b350e66773d9b56d5e15", "2023-05-22"),
    ("d33c0be41e91702ad06b222b249e08850a02f631", "2023-05-22"),
    ("02e015c8b5874c478bd3128eb368180f4fcbf60f", "2023-05-22"),
    ("480a63ea6e7d2c57b8ecb4247da2770cd9d1f932", "2023-05-22"),
    ("51fb49e205ca2ccb450abace0a7c8a22dc02e81f", "2023-05-22"),
    ("b2d405f4adc529fd01a3dc6349e0c0a82a3665d4", "2023-05-22"),
    ("49c8dc059003864d349b00ad8a18deb53c3d219f", "2023-05-23"),
    ("f2f2d4b6f3a4840176f1cb63b2937ca809e56832", "2023-05-24"),
    ("5e388f2dad67c0098f8c8a61f3d2d0cf012b22d3", "2023-05-24"),
    ("879c0233992dec95e01e113033c21b9236307bf6", "2023-05-24"),
    ("44dbd0c2f6b64e0e27fe786aa4a65d682ea5fa62", "2023-05-24"),
    ("c7a06d129444cc5ef1eea2f673a54d2236d35fbf", "2023-05-24"),
    ("a40c9eb12b184cb59d8186d0d4311e0901bcf2f2", "2023-05-24"),
    ("42c70d1fb40fa7b52f7c67ab01aae9c516e3cd4c", "2023-05-24"),
    ("c23da00ea41724eb41e001dea74b093c2e966b26", "2023-05-29"),
    ("b08f276984ecf7bd3239f8135711b06447bd4eb8", "2023-06-20"),
    ("88ef1138cb161ce5e16dbe8252c4192212526807", "2023-06-22"),
    ("9d01a0c644373da255ec2793525e7b75b1128b3b", "2023-08-16"),
    ("905fe14d9b2c437df475de4dc2142462961ce99d", "2023-10-23"),
    ("6357af9dbca0c880ded2f75f5ca929798272463e", "2023-10-30"),
    ("8ad351a21a20bc41e7ff20f0276e048578c53761", "2023-10-31"),
    ("e1c1d272e19dc14fba96e07ff61e792d58e37a8f", "2023-10-30"),
    ("8266cd69ec79153676e22ffedb4924899f865f2f", "2023-10-30"),
    ("dd7027c2ea9e1ef3a66174a05b23fdbbd2399308", "2023-10-30"),
    ("1ae55acd629623e30528115eedeed2a33c7f0688", "2024-02-08"),
    ("600997c2ba66a9bab9f0559a7c48df322d964c15", "2024-02-14"),
    ("99c6fdd48c1ac5b1e989b019d613e01fdf3666a6", "2024-02-23"),
    ("7d9be866b8fbb15f9ca98a68a23a5710d7eaa5ee", "2024-02-27"),
    ("75149f459f89d200ecd992d4d534fc21febf8e90", "2024-02-27"),
    ("0d4b8c9e9ef0b762c78c19d2a0adc76be742510a", "2024-05-07"),
    ("0f0c719a7799fb7d7ac4674020464903a6be9237", "2024-05-20"),
    ("d9c548b274eb1e9bdb61bf2fabebeb4be64011d7", "2025-02-24"),
    ("b646e30673738a5a60ab299659bf2f012e59be93", "2025-03-07"),
)
# The snapshot commit the newest version was saved at (its file is the same as the last in HISTORY).
_SNAPSHOT = "2bddc6d52544dc258e7e34396c6958377f72816b"
_HEAD_FIXTURE = "cloud/fsdl_cloud-gpus/cloud-gpus_HEAD_2025-03-07.csv"
# The commits API's answer at the snapshot: the commit that last changed the file (written from the
# repository's history in the shape GitHub answers).
COMMITS_FIXTURE = "cloud/fsdl_cloud-gpus/commits_cloud-gpus.json"

# The SHA-256 of each version in HISTORY -> its commit (short): a version read from ``main`` without the
# commits API's answer is dated by its commit when its bytes are one of these.
VERSION_SHA256 = {
    "4d1d1dfae4b561a731abffe6a318102e2806a1f83b9d13a75260a53496b49b12": "64463be",
    "a30f83dcb6651519bb8e5ffdad24eca064a2b26f9db2af0e67cb918f6626ee62": "7a2b7ff",
    "c38dfbad9ad976c9f9d22a4e92c421dc844296ae04b1c8238fa8b50611a9bb5a": "13432d3",
    "d9f16228b83b512dc8e910893cbdc8b681f7b182307ff11926308a32f748abac": "b1db066",
    "227706b34829e58011dce015efb6d6f83c55a8644385b795a8aee065e90d1682": "9543ed8",
    "592ef5ed457436bfd5f5e5f69592639acd14df120a99d9a44f55c4eae9f9e834": "8309cb7",
    "6ddbc6b0caac3dfef34b3120fea2d6ad9e973244f2c97f7125381bb986ea2dc5": "3c75306",
    "6d67e04ad7e3086762187a0504fdb408520d353a48818ac10cea4c5fb68f55e2": "ee94380",
    "aa92fd8b6a2c3451347efbacb864e9a3ba8d3a07a56ed6251c330eef0ad2c6b1": "95e9bdb",
    "c7ebf0359389a84ee36fb1a470254325c8b0ce31297211f6019ce91285c8fa9a": "7b63fee",
    "82110915922d79c0902c3039c9405869123f76c28a5ae1952956673cae6c01ad": "f3dae56",
    "dab915b7ef697914c6dcc5c0cabef51aec83096ed20747ce6bb9aa0ab49f590b": "0c7e819",
    "74b2f101136f543a8c74d6d70fca463c9e425a67aac1f864d62c7789127a0fe5": "a6497fc",
    "ddbc717c9e09833d13f94a432a664e2d902c6781e359bf6bbb0e477a3a734a24": "b2ac5dd",
    "1d4237f4fedcdaf71c2ca85bff897ea9330e0cd2337fad99ea9ecbb5655c5db4": "951b958",
    "ca6b4e5595a40a1a09a93166cbef22aec0418de3095a29200711c5c07b420d04": "0c4a04d",
    "d064cf2f7f871a231c43b9580c770e808111e2b61582042f68d537df8d639cb9": "1de8fdf",
    "84da962775b9ec85f458eb7b077919ec3c7cc052893a6f097b009f5d996b84e9": "2340051",
    "af167500ef6089dfa04a2c68d8d9ade8f7e72fe377717736de70e96f129da534": "9b08a38",
    "b1dfecc2437df1fcb7b9f3c359dad1926ebf4c5443863af198c8ba1b0df0733b": "6d05ea5",
    "d876b23a2913e51a577d36afe0f79434fc0846b2a605e3af65ca76445f000cc8": "0f46a5d",
    "9b814672200edf71f41704187da220f633cff92b5d9998f6569df6f30d3e083c": "d33c0be",
    "207caef8d5bc927554a36077c841802870d1256d2c86212ef146dbbc3ce24658": "02e015c",
    "455f2e15e492aa2bfc1282e071d5bfc904d80777fc0ce50a9d80e1a02498a828": "480a63e",
    "f540c9f16f372a9149cd9be8b0f201cad8d9237f5dbf3c4236c57b8919bfba4e": "51fb49e",
    "e30220793b020dc877cd16ba8e938b12b13d5e05c17066988cbc077e7645e4e6": "b2d405f",
    "ef153d5a4cd3bfea8ef3deeff06ca99adca4b1ab6f8ecbb7e0f28275ae96db65": "49c8dc0",
    "6b75ae38198c4c1e350c2628b309f64b8cdd974a62bb9ec27f79d78a974c0875": "f2f2d4b",
    "c94d7e1bc55c0a066f9d2a1ccadc3c383b77acc6e7a6a3fc49f3cbf8f7f09d2e": "5e388f2",
    "27eb82d2de3e767a13bcaa6658f2b5412c2c52e9729f28a3ddbad9ec2e667698": "879c023",
    "a9c0ac1884ea5d571b6f7cfb7dc87aa877612a756498b42f2bf326ecdcf99aab": "44dbd0c",
    "970a104db545c40070d490f2a86628801f2dc9050ff09395c029f8dd061b29f5": "c7a06d1",
    "80e37b3101f1a5702ccbfd6e5bf84d61ad699dbc67b51e6a521196cdeec8ec2a": "a40c9eb",
    "006831d495cea09274c588dab45cdf978f302c7b7f790625e3e30e6b31f255e8": "42c70d1",
    "16be1926be1322bee00d65ccfc9afade99538654dd3e203b3992a31344b3c6b4": "c23da00",
    "3c3f6a98e260e1f57105f7eb5118fa2e0c74e71c985b16ab2a5973b6b84104cf": "b08f276",
    "75dba5aa2e543fdd98b2c76324beb6e68924dff1a2b4c0a406c453eee20e7c53": "88ef113",
    "f97a64f1fa280aa1660d1cee00f285d2a6cc520d7a7cad8c43a44f688deedade": "9d01a0c",
    "c82b69f4c5ec321fe5d0b7b197e802fbfa833f683c737f8c125e613bbac85c97": "905fe14",
    "27d0a729f38e36d8278aef657ad67b0fdefdda083ec1e5b10d59212c98a52a48": "6357af9",
    "e5775200bc0bf652de164f13eed5bf2bc0c599ff333532208791e71e05a0717e": "8ad351a",
    "f8a3f155e2c0a4b90712e8e20c8316eb0ed2f5859c09c1d79dfeaa56c6b94ac5": "e1c1d27",
    "f1bb270b22dffe262d78207b0a5a258a2cd1dbd457d0cc7ecbbec4e83b20e989": "8266cd6",
    "808b0aaf4ea4a52d52a3b816611892944ee6351d478dad72d628b15666edde02": "dd7027c",
    "26ea0fa6993b175709622514f99f98d17672a51cfae60df2665915546fd78c8f": "1ae55ac",
    "60171cecbbb41ff1ee4016dd92b44613225530ea934f4796b39373fe80db3610": "600997c",
    "3b04677dafafb141b02961125eec905fb9ebe98ea2ff7232f80f9f6b149ee3eb": "99c6fdd",
    "92fe72d9187263f94587c028364b423adde4ba0341a9e29c1d2cfa742a11d7fa": "7d9be86",
    "d5b9dad1c94a80bc8803113ff2a0b23746818b3a8cfaff6d38effbc24560cf6f": "75149f4",
    "0456b6b5177c266a360ccb1b531f53ca5d8d03c5d7ec0364670f93f37c2ff92c": "0d4b8c9",
    "af7bf255297cdc494d063d5918bfc4be1d5ed13b5fd6ed6b50319de5f42b0834": "0f0c719",
    "d13c94fae05b206612caa45ab0fbe7265b68a7f77f4111ebffe1240dbfd717f5": "d9c548b",
    "cd69e286d6dcf872a5f1829a36e1a28765ce1f4e005fca8c7a88d2d964bffbf3": "b646e30",
}

_COMMIT_DATES = {commit: date.fromisoformat(day) for commit, day in HISTORY}
_BY_SHORT = {commit[:7]: commit for commit, _ in HISTORY}
KNOWN_VERSIONS = {sha: _COMMIT_DATES[_BY_SHORT[short]] for sha, short in VERSION_SHA256.items()}
NEWEST_KNOWN = max(_COMMIT_DATES.values())
_PINNED = re.compile(rf"^https://raw\.githubusercontent\.com/{re.escape(_REPO)}/([0-9a-f]{{40}})/{re.escape(_PATH)}$")
_RANGE = re.compile(r"^\[?\s*\d+(?:\.\d+)?\s*-\s*\d+(?:\.\d+)?\s*\]?$")
# Per-GPU and On-demand / GPUs may differ a little by rounding; beyond this they say different things.
_PER_GPU_TOLERANCE = 0.02

# FSDL's cloud names, lower-cased with hyphens, except where another source names the same cloud.
_PROVIDER_ALIASES = {"runpod.io": "runpod"}


def pinned_url(commit: str) -> str:
    """The raw URL of the file as it was at ``commit``."""
    return raw_url(_REPO, commit, _PATH)


def history_fixture(commit: str, day: str) -> str:
    return f"cloud/fsdl_cloud-gpus/history/cloud-gpus_{day}_{commit[:7]}.csv"


def commit_date(url: str) -> date | None:
    """The commit date of a URL pinned to a known commit; None for the live URL or an unknown commit."""
    match = _PINNED.match(url)
    return _COMMIT_DATES.get(match.group(1)) if match else None


def data_date(page: FetchedPage, commit: LastCommit | None = None) -> TableDate:
    """The date of a fetched version's prices: its commit's where the page is pinned to one in HISTORY
    or to the commit the fetch's commits answer named (``commit``, given only then), else its known
    version's, else of an unknown date (``NEWEST_KNOWN``); never the day it was read."""
    known = commit_date(page.url)
    if known is not None:
        return TableDate(known, True, f"committed on {known}")
    return table_date(page, commit=commit, known_versions=KNOWN_VERSIONS, unknown_as_of=NEWEST_KNOWN)


def provider_slug(cloud: str) -> str:
    slug = "-".join(cloud.casefold().split())
    return _PROVIDER_ALIASES.get(slug, slug)


def _quantity(row: CsvRow, name: str) -> float | None:
    """A count or size; None when blank or a range (``4-6``, ``[4-6]``), which names no one offer."""
    text = row.cell(name).replace(",", "")
    if not text or _RANGE.match(text):
        return None
    return row.number(name, text)


def read_fsdl_cloud_gpus(body: bytes, url: str, as_of: date) -> tuple[list[RentalOffer], list[str]]:
    """One offer per priced row of a ``cloud-gpus.csv`` version, in file order, and warnings for the rows
    skipped or doubted. Raises only ParseError."""
    table = read_csv_table(body, source=NAME, url=url, required=REQUIRED_COLUMNS, optional=OPTIONAL_COLUMNS)
    offers: list[RentalOffer] = []
    warnings: list[str] = []
    disagreeing: list[int] = []
    unchecked: list[int] = []
    for row in table:
        line, cell = row.line, row.cell
        if cell("Cloud") == "Cloud":
            warnings.append(f"{url} line {line}: a repeated header row, skipped")
            continue
        cloud, gpu_name = cell("Cloud"), cell("GPU Type")
        if not cloud or not gpu_name:
            raise row.error(f"no {'Cloud' if not cloud else 'GPU Type'}")
        gpus = _quantity(row, "GPUs")
        if gpus is None or gpus < 1 or gpus != int(gpus):
            warnings.append(f"{url} line {line}: {cloud} {gpu_name}: GPU count {cell('GPUs')!r} names no one offer, skipped")
            continue
        count = int(gpus)
        on_demand = row.usd("On-demand")
        per_gpu = row.usd("Per-GPU")
        spot = row.usd("Spot")
        if on_demand is None and per_gpu is None and spot is None:
            warnings.append(f"{url} line {line}: {cloud} {gpu_name}: no price, skipped")
            continue
        usd_per_gpu_hour: float | None = None
        if on_demand is not None:
            usd_per_gpu_hour = round(on_demand / count, 6)
            if per_gpu is not None and abs(usd_per_gpu_hour - per_gpu) > _PER_GPU_TOLERANCE * max(per_gpu, usd_per_gpu_hour):
                disagreeing.append(line)
        elif per_gpu is not None:
            usd_per_gpu_hour = per_gpu
            if count > 1:
                unchecked.append(line)

        gpu_ram = _quantity(row, "GPU RAM")
        memory = memory_from_name(gpu_name)
        if memory is None and gpu_ram is not None:
            memory = gpu_ram / count
        arch = cell("GPU Arch") or None
        instance_type = cell("Name") or None
        provider = provider_slug(cloud)
        try:
            offers.append(
                RentalOffer(
                    source=NAME,
                    provider=provider,
                    instance_type=instance_type,
                    gpu_name=gpu_name,
                    gpu_count=count,
                    usd_per_hour=on_demand,
                    usd_per_gpu_hour=usd_per_gpu_hour,
                    spot_usd_per_hour=spot,
                    spot_usd_per_gpu_hour=None if spot is None else round(spot / count, 6),
                    vcpus=_quantity(row, "vCPUs"),
                    memory_gib=_quantity(row, "RAM"),
                    gpu_memory_gb=memory,
                    gpu_arch=arch,
                    as_of=as_of,
                )
            )
        except ValueError as exc:  # pydantic's ValidationError is a ValueError
            raise row.error(str(exc)) from None
    if disagreeing:
        warnings.append(
            f"{url}: {len(disagreeing)} row(s) whose Per-GPU differs from On-demand / GPUs (lines "
            f"{lines_said(disagreeing)}); the whole-instance price divided is used"
        )
    if unchecked:
        warnings.append(
            f"{url}: {len(unchecked)} multi-GPU row(s) with only a Per-GPU price, taken as published (lines "
            f"{lines_said(unchecked)})"
        )
    return offers, warnings


def parse_fsdl_cloud_gpus(body: bytes, url: str, as_of: date) -> list[RentalOffer]:
    """One offer per priced row of a ``cloud-gpus.csv`` version, in file order. Raises only ParseError."""
    return read_fsdl_cloud_gpus(body, url, as_of)[0]


def replay_history() -> list[tuple[str, date]]:
    """The version a replay reads for each commit date before the newest, oldest first: the day's last
    commit, so that one date is one version (a later load of a date replaces it). Commit dates are not
    always in commit order (2023-10-31 ``8ad351a`` precedes three commits dated 2023-10-30); a day whose
    last commit is older than an earlier day's is skipped, so prices never step back to a superseded
    version. The newest date is the live URL's."""
    position = {commit: i for i, (commit, _) in enumerate(HISTORY)}
    last_of_day: dict[date, str] = {}
    for commit, day in HISTORY:
        last_of_day[date.fromisoformat(day)] = commit
    newest = date.fromisoformat(HISTORY[-1][1])
    chosen: list[tuple[str, date]] = []
    for on in sorted(last_of_day):
        commit = last_of_day[on]
        if on < newest and (not chosen or position[commit] > position[chosen[-1][0]]):
            chosen.append((commit, on))
    return chosen


def _fetch(ctx: FetchContext) -> SourceFetch:
    out = SourceFetch(NAME)
    if ctx.replay:
        # The recorded history is the point of this source: a replay loads every dated version, so the
        # warehouse starts with rental prices since 2022 rather than one day of them.
        history = replay_history()
        ctx.report(f"{NAME}: {len(history)} dated versions of {_PATH}, then the newest")
        out.pages.extend(ctx.client.get(pinned_url(commit), source=NAME) for commit, _ in history)
    # The commit first, then the file as of it: the body is the version the date is of.
    commit = fetch_last_commit(ctx, out, _REPO, _PATH)
    ctx.report(f"{NAME}: {_PATH} (newest version{f', {commit.sha[:7]} of {commit.day}' if commit else ''})")
    out.pages.append(ctx.client.get(pinned_url(commit.sha) if commit else LIVE_URL, source=NAME))
    return out


_parse, _parse_fetch = dated_table_parsers(NAME, "rental", _REPO, _PATH, read=read_fsdl_cloud_gpus, data_date=data_date)


def _replay(fixtures: Path) -> Iterator[Recording]:
    for commit, day in HISTORY:
        body = (fixtures / history_fixture(commit, day)).read_bytes()
        yield Recording(page_from_file(NAME, body, pinned_url(commit), at_midnight_utc(date.fromisoformat(day)), "text/csv"), provenance=f"{_REPO}@{commit}:{_PATH} ({day})")
    newest_commit, newest_day = HISTORY[-1]
    answer = (fixtures / COMMITS_FIXTURE).read_bytes()
    yield Recording(
        page_from_file(NAME, answer, COMMITS_URL, at_midnight_utc(date.fromisoformat(newest_day)),
                       "application/json; charset=utf-8"),
        provenance=f"GitHub's commits API for {_REPO}:{_PATH} at {_SNAPSHOT}: last changed in {newest_commit[:7]} "
                   f"({newest_day}), written from the repository's history",
    )


SOURCE = Source(
    name=NAME,
    kind="rental",
    attribution="Cloud GPU prices from Full Stack Deep Learning's cloud GPU table (the-full-stack/website)",
    licence="MIT",
    fetch=_fetch,
    parse=_parse,
    parse_fetch=_parse_fetch,
    replay=_replay,
    fixtures=(_HEAD_FIXTURE, *(history_fixture(commit, day) for commit, day in HISTORY), COMMITS_FIXTURE),
)
