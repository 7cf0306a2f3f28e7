"""The fine-tuning memory floor (models/finetune_memory.py): its byte counts, its forms of input, and
its JavaScript twin for the buyer's page, which must give the same GB as the Python rule."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from gpuvalue.models.finetune_memory import (
    GIB, JS_SOURCE, METHODS, finetune_floor, finetune_memory, parse_params,
)

# (parameters, method) -> GB a card, at batch 1 x 2048 tokens: the documented table (docs/recommend.md).
TABLE = {
    ("350M", "full"): 6.0, ("350M", "lora"): 1.0, ("350M", "qlora"): 0.5,
    ("1.5B", "full"): 25.0, ("1.5B", "lora"): 3.6, ("1.5B", "qlora"): 1.4,
    ("8B", "full"): 132.1, ("8B", "lora"): 18.0, ("8B", "qlora"): 5.9,
    ("70b", "full"): 1150.8, ("70b", "lora"): 152.6, ("70b", "qlora"): 46.1,
}


@pytest.mark.parametrize("text, params", [("8B", 8e9), ("70b", 70e9), ("1.5B", 1.5e9), ("350M", 350e6),
                                          (" 13 b ", 13e9), ("2t", 2e12), ("125k", 125e3), (".5B", 0.5e9)])
def test_parameter_counts_are_read_as_people_write_them(text, params):
    assert parse_params(text) == pytest.approx(params)


@pytest.mark.parametrize("text", ["8X", "-8B", "8", "B", "", "8 billion", "1e9", "nanB", "0B", "20T"])
def test_anything_else_is_refused_in_one_line(text):
    with pytest.raises(ValueError) as err:
        parse_params(text)
    assert "--model-params" in str(err.value) and "\n" not in str(err.value)


def test_the_table_of_floors_holds():
    found = {(p, m): finetune_memory(parse_params(p), m).floor_gb for p, m in TABLE}
    assert found == TABLE


def test_full_fine_tuning_counts_16_bytes_a_parameter_and_qlora_about_half_a_byte():
    full = finetune_memory(8e9, "full")
    assert (full.weights_gib + full.gradients_gib + full.optimizer_gib) * GIB == pytest.approx(16 * 8e9)
    qlora = finetune_memory(8e9, "qlora")
    assert qlora.weights_gib * GIB == pytest.approx(8e9 * 4.127 / 8 + 8e9 * 0.005 * 4)
    lora = finetune_memory(8e9, "lora")
    assert lora.weights_gib * GIB == pytest.approx(8e9 * 2 + 8e9 * 0.005 * 4)
    # Activations are the same whichever way the weights are trained, and grow with the tokens a step.
    assert full.activations_gib == qlora.activations_gib == lora.activations_gib
    assert finetune_memory(8e9, "qlora", batch=4).activations_gib == pytest.approx(4 * qlora.activations_gib)


@pytest.mark.parametrize("method", METHODS)
def test_more_parameters_or_a_heavier_method_never_need_less(method):
    sizes = [1e8, 3.5e8, 1e9, 1.5e9, 7e9, 8e9, 13e9, 70e9, 405e9]
    floors = [finetune_memory(p, method).floor_gb for p in sizes]
    assert floors == sorted(floors)
    for p in sizes:
        q, lo, fu = (finetune_memory(p, m).floor_gb for m in ("qlora", "lora", "full"))
        assert q < lo < fu


def test_the_two_flags_go_together():
    assert finetune_floor(None, None) is None
    assert finetune_floor("8B", "QLoRA").method == "qlora"
    for params, method, words in ((None, "lora", "--method needs --model-params"),
                                  ("8B", None, "--model-params needs --method"),
                                  ("8B", "half", "--method must be one of full, lora, qlora")):
        with pytest.raises(ValueError, match=words):
            finetune_floor(params, method)


def test_the_words_say_the_floor_its_parts_and_where_the_rule_is():
    words = finetune_memory(8e9, "qlora").words()
    assert "8B parameters by QLoRA" in words and "5.9 GB a card" in words and "batch 1 x 2048 tokens" in words
    assert "docs/recommend.md" in words
    assert "each card holds all of it" in finetune_memory(8e9, "full").words()


def _grid() -> list[tuple[float, str, int, int]]:
    sizes = [1e6, 1.25e8, 3.5e8, 1.1e9, 1.5e9, 3e9, 7e9, 8e9, 13e9, 34e9, 70e9, 180e9, 405e9, 1e12]
    return [(p, m, b, s) for p in sizes for m in METHODS for b, s in ((1, 2048), (4, 512), (8, 4096))]


def test_the_javascript_twin_gives_the_same_floors():
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the table above still pins the Python rule")
    grid = _grid()
    script = JS_SOURCE + f"""
var grid = {json.dumps(grid)};
console.log(JSON.stringify(grid.map(function (g) {{ return finetuneMemoryGb(g[0], g[1], g[2], g[3]); }})));
console.log(JSON.stringify([finetuneMemoryGb(8e9, "half"), finetuneMemoryGb(-1, "lora"), finetuneMemoryGb(8e9, "qlora")]));
"""
    out = subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=30, check=True).stdout.splitlines()
    assert json.loads(out[0]) == [finetune_memory(p, m, batch=b, sequence=s).floor_gb for p, m, b, s in grid]
    assert json.loads(out[1]) == [None, None, finetune_memory(8e9, "qlora").floor_gb]


def test_qlora_fits_the_papers_65b_on_one_48_gb_card():
    """The QLoRA paper fine-tunes a 65B model on a single 48 GB GPU: the floor must not rule that out."""
    assert finetune_memory(parse_params("65B"), "qlora").floor_gb <= 48
    assert finetune_memory(parse_params("70B"), "qlora").floor_gb <= 48
