"""The enrich stage's rule for rental offers: each offer's published GPU name matched to a catalog model.

A rental parser returns what the page says (``RentalOffer`` with ``model`` None and no
``match_reason``); the flow's enrich step (``flows/enrich.py``) matches each offer here, by what the
offer itself states beside the name: the GPU memory, the architecture, the provider and its
configuration name, and the source's own reading of its names where it declares one
(``Source.gpu_names``). Pure: the matcher is ``models/cloud_names.py``'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from gpuvalue.models.cloud_names import CloudMatch, NameReading, match_cloud_gpu
from gpuvalue.models.rental import RentalOffer

# A source's own reading of a name: (provider, published name, instance type) -> the reading, or None.
Reading = Callable[[str, str, str | None], NameReading | None]


def match_offers(offers: Iterable[RentalOffer], reading: Reading | None = None) -> list[RentalOffer]:
    """The offers with their catalog match; an offer its source already matched (a ``match_reason``)
    is kept as it is. Each distinct (name, memory, architecture, provider, instance type) is matched once."""
    known: dict[tuple, CloudMatch] = {}
    out = []
    for offer in offers:
        if offer.match_reason:
            out.append(offer)
            continue
        key = (offer.gpu_name, offer.gpu_memory_gb, offer.gpu_arch, offer.provider, offer.instance_type)
        match = known.get(key)
        if match is None:
            match = known[key] = match_cloud_gpu(
                offer.gpu_name, memory_gb=offer.gpu_memory_gb, arch=offer.gpu_arch, provider=offer.provider,
                instance_type=offer.instance_type,
                reading=reading(offer.provider, offer.gpu_name, offer.instance_type) if reading else None)
        out.append(offer.model_copy(update={"model": match.model, "match_reason": match.reason}))
    return out
