"""The memory a card needs to fine-tune a transformer of a given size: full, LoRA or QLoRA, on 1 to N cards.

`recommend --model-params 8B --method qlora` turns the model a buyer means to fine-tune into a memory
floor at each card count, so the answer never names a setup that runs out of memory on that work. The
rule counts what stays on a card during a training step (docs/recommend.md, "Fine-tuning memory",
gives the sources):

- **full**: mixed-precision AdamW keeps 16 bytes a parameter: bf16 weights (2) and gradients (2) and
  the optimizer's fp32 master weights, momentum and variance (12). The ZeRO paper (Rajbhandari et al.
  2020, section 3.1) and EleutherAI's "Transformer Math 101" (2023) count the same parts.
- **lora**: the base weights frozen in bf16 (2 bytes a parameter, no gradient, no optimizer state)
  and trainable adapters of ``ADAPTER_FRACTION`` of the parameters at 16 bytes each (Hu et al. 2021).
- **qlora**: the linear layers in 4-bit NF4 with double-quantized constants, 4.127 bits a parameter
  (Dettmers et al. 2023, "QLoRA", section 3); the embedding and output head, which bitsandbytes does
  not quantize, in bf16; and the same adapters.
- **activations**, every method: gradient checkpointing (what full and LoRA fine-tuning recipes and
  the QLoRA paper use) keeps each layer's bf16 input, ``2 s b h`` bytes a layer, and recomputes one
  layer at a time, ``34 s b h`` bytes (Korthikanti et al. 2022, without the attention-score term that
  FlashAttention never stores), at ``DEFAULT_BATCH`` sequences of ``DEFAULT_SEQUENCE`` tokens.
  The model's shape comes from its size: ``P = 12 L h^2`` with ``L = h / 128`` (Llama's 8B shape).
- **logits**: ``LOGIT_BYTES`` a token and vocabulary entry over ``VOCABULARY`` (Llama 3's 128K).
- **headroom**: ``HEADROOM`` more for the allocator and temporary buffers (10%: the QLoRA paper
  fine-tunes a 65B model on one 48 GB card, which Transformer Math 101's 20% would rule out), and
  ``CUDA_CONTEXT_GIB`` a card for the CUDA context.

On ``gpus`` cards FSDP or ZeRO-3 shards the weights, gradients and optimizer state (ZeRO stage 3:
each card holds 1/N), and each card gathers ``GATHERED_LAYERS`` whole layers at a time; activations,
logits, headroom and context stay per card. No CPU offloading is counted. Bytes are counted in GiB,
the unit in which card memory is sold as "GB". Pure: numbers and text in, numbers and text out.

``JS_SOURCE`` is the same formula in JavaScript, built from these constants, for a page to compute the
floor as the command does (tests/models/test_finetune_memory.py runs it against this module).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

METHODS = ("full", "lora", "qlora")

FULL_WEIGHT_BYTES = 2.0  # full fine-tuning, a parameter: bf16 weights
FULL_GRADIENT_BYTES = 2.0  # bf16 gradients
FULL_OPTIMIZER_BYTES = 12.0  # AdamW's fp32 master weights 4, momentum 4, variance 4
FULL_BYTES_PER_PARAM = FULL_WEIGHT_BYTES + FULL_GRADIENT_BYTES + FULL_OPTIMIZER_BYTES  # 16
FROZEN_BF16_BYTES_PER_PARAM = 2.0  # LoRA: the base model frozen in bf16
NF4_BITS_PER_PARAM = 4.127  # QLoRA: 4-bit NormalFloat weights + double-quantized constants (0.127 bits)
ADAPTER_FRACTION = 0.005  # trainable adapter parameters, a share of the model's (about rank 16 on every projection)
ADAPTER_WEIGHT_BYTES = 4.0  # adapters train in fp32: weight 4, gradient 4, AdamW momentum and variance 8
ADAPTER_GRADIENT_BYTES = 4.0
ADAPTER_OPTIMIZER_BYTES = 8.0
ADAPTER_BYTES_PER_PARAM = ADAPTER_WEIGHT_BYTES + ADAPTER_GRADIENT_BYTES + ADAPTER_OPTIMIZER_BYTES  # 16
CHECKPOINT_BYTES = 2.0  # per token and hidden unit, each layer: its bf16 input, kept for the backward pass
LAYER_BYTES = 34.0  # per token and hidden unit: the one layer recomputed at a time (Korthikanti et al. 2022)
LAYERS_PER_WIDTH = 1 / 128  # layers per hidden unit: Llama 3 8B has 32 layers of 4,096
HEADROOM = 0.10  # allocator fragmentation and temporary buffers: 10% keeps QLoRA's 65B on one 48 GB card
CUDA_CONTEXT_GIB = 0.5  # a card's CUDA context, kernels and cuBLAS workspace: 0.3-0.5 GB before any tensor
VOCABULARY = 128_256  # tokens in the vocabulary: Llama 3's, the family whose proportions the shape follows
EMBEDDING_SHARE_MAX = 0.5  # the embedding and output head never count for more than half a model's parameters
LOGIT_BYTES = 6.0  # per token and vocabulary entry: the bf16 logits (2) and the fp32 copy the loss reads (4)
GATHERED_LAYERS = 2  # sharded: the layer being computed and the one prefetched, gathered whole on every card
DEFAULT_BATCH = 1  # sequences a step
DEFAULT_SEQUENCE = 2048  # tokens a sequence
GIB = 1024.0 ** 3

_UNITS = {"k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}
_PARAMS = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*([kmbt])\s*$", re.IGNORECASE)
MAX_PARAMS = 1e13  # ten trillion: beyond any model a card is bought for


def parse_params(text: str) -> float:
    """``8B``, ``70b``, ``1.5B``, ``350M`` (K, M, B or T, any case) as a number of parameters.
    Raises ValueError with a one-line reason for anything else (a bare number is ambiguous: 8 or 8B?)."""
    found = _PARAMS.match(text or "")
    if not found:
        raise ValueError(f"--model-params must be a parameter count such as 8B, 70b, 1.5B or 350M, not {text!r}")
    value = float(found.group(1)) * _UNITS[found.group(2).lower()]
    if not (0 < value <= MAX_PARAMS):
        raise ValueError(f"--model-params must be above 0 and at most 10T, not {text!r}")
    return value


def params_words(params: float) -> str:
    """``8B``, ``1.5B``, ``350M``: a parameter count as people write it."""
    for unit, scale in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if params >= scale:
            return f"{params / scale:g}{unit}"
    return f"{params:g}"


@dataclass(frozen=True)
class FinetuneMemory:
    """What one card holds to fine-tune a model of ``params`` parameters by ``method`` on ``gpus`` cards, in GiB."""

    params: float
    method: str
    batch: int
    sequence: int
    weights_gib: float  # the model's weights as stored (bf16, or NF4 with a bf16 embedding and head for QLoRA)
    gradients_gib: float  # the trained parameters' gradients
    optimizer_gib: float  # AdamW's state (with the fp32 master weights for full fine-tuning)
    activations_gib: float
    headroom_gib: float
    logits_gib: float = 0.0  # the output layer's logits over the vocabulary, and the loss's fp32 copy
    context_gib: float = CUDA_CONTEXT_GIB
    gpus: int = 1  # the cards the weights, gradients and optimizer state are sharded across (FSDP, ZeRO-3)
    gathered_gib: float = 0.0  # sharded: the layers gathered whole at a time

    @property
    def total_gib(self) -> float:
        return (self.weights_gib + self.gradients_gib + self.optimizer_gib + self.activations_gib
                + self.logits_gib + self.gathered_gib + self.headroom_gib + self.context_gib)

    @property
    def floor_gb(self) -> float:
        """The memory floor a card must meet, rounded up to a tenth of a GB."""
        return math.ceil(self.total_gib * 10 - 1e-9) / 10

    def on(self, gpus: int) -> FinetuneMemory:
        """The same work sharded across ``gpus`` cards."""
        return finetune_memory(self.params, self.method, batch=self.batch, sequence=self.sequence, gpus=gpus)

    def floors(self, most: int) -> tuple[float, ...]:
        """The floor a card for 1, 2, ... ``most`` cards: the ``memory_by_gpus`` of ``models/choose.py``'s query."""
        return tuple(self.on(n).floor_gb for n in range(1, most + 1))

    def as_dict(self) -> dict[str, float | int | str]:
        """The floor and its parts, as ``recommend --json`` gives them (``finetune``)."""
        return {"model_params": self.params, "method": self.method, "batch": self.batch, "sequence": self.sequence,
                "memory_gb": self.floor_gb, "weights_gb": round(self.weights_gib, 2),
                "gradients_gb": round(self.gradients_gib, 2), "optimizer_gb": round(self.optimizer_gib, 2),
                "activations_gb": round(self.activations_gib, 2), "headroom_gb": round(self.headroom_gib, 2),
                "logits_gb": round(self.logits_gib, 2), "cuda_context_gb": round(self.context_gib, 2),
                "gpus": self.gpus, "gathered_gb": round(self.gathered_gib, 2)}

    def words(self, most: int = 1) -> str:
        """One line for an answer's assumptions: the floor, its parts, the sharded floor on 2 to ``most``
        cards and where the rule is written."""
        how = {"full": "full fine-tuning (mixed-precision AdamW, 16 bytes a parameter)",
               "lora": f"LoRA (base frozen in bf16, adapters of {ADAPTER_FRACTION:.1%} of the parameters)",
               "qlora": f"QLoRA (base in 4-bit NF4, adapters of {ADAPTER_FRACTION:.1%} of the parameters)"}[self.method]
        state = self.gradients_gib + self.optimizer_gib
        return (f"fine-tuning a model of {params_words(self.params)} parameters by {how} needs about "
                f"{self.floor_gb:g} GB on one card: weights {self.weights_gib:.1f}, gradients and optimizer "
                f"{state:.1f}, activations {self.activations_gib:.1f} and logits {self.logits_gib:.1f} (batch "
                f"{self.batch} x {self.sequence} tokens, gradient checkpointing), {HEADROOM:.0%} headroom "
                f"{self.headroom_gib:.1f}, CUDA context {self.context_gib:.1f}"
                + (f"; on several cards FSDP or ZeRO-3 shards the weights, gradients and optimizer state: "
                   f"{self.sharded_words(most)}" if most > 1 else "")
                + " (--model-params, --method; docs/recommend.md)")

    def sharded_words(self, most: int) -> str:
        """``2 cards 70.6 GB a card, 3 cards ...``: the floor a card at each count from 2 to ``most``."""
        return ", ".join(f"{n} cards {self.on(n).floor_gb:g} GB a card" for n in range(2, most + 1))


def model_shape(params: float) -> tuple[float, float]:
    """The hidden width and layer count of a decoder of ``params`` parameters: ``P = 12 L h^2``
    with ``L = h * LAYERS_PER_WIDTH``."""
    hidden = math.cbrt(params / (12 * LAYERS_PER_WIDTH))
    return hidden, max(1.0, hidden * LAYERS_PER_WIDTH)


def finetune_memory(params: float, method: str, *, batch: int = DEFAULT_BATCH,
                    sequence: int = DEFAULT_SEQUENCE, gpus: int = 1, vocabulary: int = VOCABULARY) -> FinetuneMemory:
    """The memory one card needs to fine-tune ``params`` parameters by ``method`` (full, lora, qlora), the
    weights, gradients and optimizer state sharded across ``gpus`` cards (FSDP, ZeRO-3) where above one."""
    if method not in METHODS:
        raise ValueError(f"--method must be one of {', '.join(METHODS)}, not {method!r}")
    if not (math.isfinite(params) and 0 < params <= MAX_PARAMS):
        raise ValueError(f"the parameter count must be above 0 and at most 10T, not {params!r}")
    if batch < 1 or sequence < 1 or gpus < 1:
        raise ValueError("batch, sequence and gpus must be at least 1")
    hidden, layers = model_shape(params)
    tokens = batch * sequence
    activations = tokens * hidden * (CHECKPOINT_BYTES * layers + LAYER_BYTES)
    logits = tokens * vocabulary * LOGIT_BYTES
    adapters = params * ADAPTER_FRACTION
    layer_bytes = FROZEN_BF16_BYTES_PER_PARAM
    if method == "full":
        weights, gradients, optimizer = (FULL_WEIGHT_BYTES * params, FULL_GRADIENT_BYTES * params,
                                         FULL_OPTIMIZER_BYTES * params)
        layer_bytes = FULL_WEIGHT_BYTES + FULL_GRADIENT_BYTES
    else:
        if method == "lora":
            base = params * FROZEN_BF16_BYTES_PER_PARAM
        else:  # the 4-bit layers are the linear ones: the embedding and the output head stay in bf16
            embedding = min(2 * vocabulary * hidden, EMBEDDING_SHARE_MAX * params)
            base = (params - embedding) * NF4_BITS_PER_PARAM / 8 + embedding * FROZEN_BF16_BYTES_PER_PARAM
            layer_bytes = NF4_BITS_PER_PARAM / 8
        weights = base + adapters * ADAPTER_WEIGHT_BYTES
        gradients = adapters * ADAPTER_GRADIENT_BYTES
        optimizer = adapters * ADAPTER_OPTIMIZER_BYTES
    weights, gradients, optimizer = weights / gpus, gradients / gpus, optimizer / gpus
    gathered = GATHERED_LAYERS * 12 * hidden ** 2 * layer_bytes if gpus > 1 else 0.0
    held = weights + gradients + optimizer + activations + logits + gathered
    return FinetuneMemory(params=params, method=method, batch=batch, sequence=sequence,
                          weights_gib=weights / GIB, gradients_gib=gradients / GIB, optimizer_gib=optimizer / GIB,
                          activations_gib=activations / GIB, headroom_gib=held * HEADROOM / GIB,
                          logits_gib=logits / GIB, context_gib=CUDA_CONTEXT_GIB, gpus=gpus, gathered_gib=gathered / GIB)


def finetune_floor(model_params: str | None, method: str | None) -> FinetuneMemory | None:
    """The fine-tuning memory ``recommend``'s two flags ask for; None when neither is given.
    Raises ValueError with a one-line reason for a bad or half-given pair."""
    if model_params is None and method is None:
        return None
    if model_params is None:
        raise ValueError("--method needs --model-params (the model's size, such as 8B)")
    if method is None:
        raise ValueError(f"--model-params needs --method: one of {', '.join(METHODS)}")
    name = method.strip().lower()
    if name not in METHODS:
        raise ValueError(f"--method must be one of {', '.join(METHODS)}, not {method!r}")
    return finetune_memory(parse_params(model_params), name)


def _js_number(value: float) -> str:
    return repr(float(value))


# The same rule for the buyer's page: a function ``finetuneMemoryGb(params, method, batch, sequence, gpus)``
# returning the floor a card in GB (rounded up to a tenth), or null for an unknown method or a bad count.
JS_SOURCE = f"""\
function finetuneMemoryGb(params, method, batch, sequence, gpus) {{
  batch = batch || {DEFAULT_BATCH}; sequence = sequence || {DEFAULT_SEQUENCE}; gpus = gpus || 1;
  if (!(params > 0 && params <= {_js_number(MAX_PARAMS)}) || batch < 1 || sequence < 1 || gpus < 1) {{ return null; }}
  var hidden = Math.cbrt(params / (12 * {_js_number(LAYERS_PER_WIDTH)}));
  var layers = Math.max(1, hidden * {_js_number(LAYERS_PER_WIDTH)});
  var tokens = batch * sequence;
  var held = tokens * hidden * ({_js_number(CHECKPOINT_BYTES)} * layers + {_js_number(LAYER_BYTES)});
  held += tokens * {_js_number(VOCABULARY)} * {_js_number(LOGIT_BYTES)};
  var adapters = params * {_js_number(ADAPTER_FRACTION)}, state, layerBytes = {_js_number(FROZEN_BF16_BYTES_PER_PARAM)};
  if (method === "full") {{
    state = {_js_number(FULL_BYTES_PER_PARAM)} * params; layerBytes = {_js_number(FULL_WEIGHT_BYTES + FULL_GRADIENT_BYTES)};
  }} else if (method === "lora") {{
    state = params * {_js_number(FROZEN_BF16_BYTES_PER_PARAM)} + adapters * {_js_number(ADAPTER_BYTES_PER_PARAM)};
  }} else if (method === "qlora") {{
    var embedding = Math.min(2 * {_js_number(VOCABULARY)} * hidden, {_js_number(EMBEDDING_SHARE_MAX)} * params);
    state = (params - embedding) * {_js_number(NF4_BITS_PER_PARAM)} / 8 + embedding * {_js_number(FROZEN_BF16_BYTES_PER_PARAM)}
      + adapters * {_js_number(ADAPTER_BYTES_PER_PARAM)};
    layerBytes = {_js_number(NF4_BITS_PER_PARAM)} / 8;
  }} else {{ return null; }}
  held += state / gpus + (gpus > 1 ? {_js_number(GATHERED_LAYERS)} * 12 * hidden * hidden * layerBytes : 0);
  var total = held / {_js_number(GIB)} * (1 + {_js_number(HEADROOM)}) + {_js_number(CUDA_CONTEXT_GIB)};
  return Math.ceil(total * 10 - 1e-9) / 10;
}}
"""
