"""`gpuvalue recommend` as a terminal reads it: the three answers, each with why, then what they assumed.

Pure: ``BudgetAnswers`` in, text out; every figure here is one of ``answers_json``'s.
"""

from __future__ import annotations

from gpuvalue.models.budget_answers import (
    ANSWER_TITLES,
    Answer,
    BudgetAnswers,
    least_floor,
    own_assumptions,
    priced_words,
    usd_words,
)
from gpuvalue.models.unpriced import unpriced_words


def _headline(result: BudgetAnswers) -> str:
    o = result.options
    use = f" for {o.use_case}" if o.use_case else ""
    need = f", at least {result.min_memory_gb:g} GB a card" if result.min_memory_gb is not None else ""
    least = least_floor(o)
    if o.finetune is not None and least is not None and result.min_memory_gb is not None \
            and least < result.min_memory_gb - 1e-9:
        need = f", at least {result.min_memory_gb:g} GB on one card ({least:g} GB a card sharded on {max(o.counts)})"
    if o.gpus is not None:
        cards = f", {o.gpus} GPUs" if o.gpus > 1 else ", one card"
    else:
        cards = f", 1 to {result.max_gpus} cards" if result.max_gpus > 1 else ", one card"
    return f"Budget ${o.budget_usd:,.0f}{use}{need}{cards}"


def _answer_lines(answer: Answer, months: float, title: str) -> list[str]:
    s = answer.setup
    if s is None:
        return [f"{title}: none; {answer.why}"]
    platform = f" (cards ${s.cards_usd:,.0f} + machine ${s.platform_usd:,.0f})" if s.platform_usd else ""
    interval = (f" ({s.throughput_low:.2f}-{s.throughput_high:.2f})"
                if s.throughput_low is not None and s.throughput_high is not None else "")
    lines = [f"{title}: {s.label}, ${s.cost_usd:,.0f}{platform}, throughput {s.throughput:.2f}x{interval}; "
             f"{usd_words(answer.money_left_usd or 0.0)} left",
             f"   {answer.why}"]
    lines.extend(f"   {words}" for words in own_assumptions(answer))  # this setup's own: scaling, memory, power
    if answer.sharding is not None:
        lines.append(f"   {answer.sharding}")
    if s.yearly_electricity_usd is not None:
        lines.append(f"   electricity ~${s.yearly_electricity_usd:,.0f}/year, counted in its value over "
                     f"{months:g} months of ownership")
    if answer.new_price is not None:
        lines.append(f"   {answer.new_price.words()}")
    return lines


def _same(a: Answer, b: Answer) -> bool:
    if a.setup is None or b.setup is None:
        return a.setup is None and b.setup is None and a.why == b.why
    return (a.setup.model, a.setup.gpus) == (b.setup.model, b.setup.gpus)


def format_budget_answers(result: BudgetAnswers) -> str:
    lines = [_headline(result)]
    # One setup that answers several questions is shown once: "Fastest and best value: ...".
    groups: list[list[Answer]] = []
    for answer in result.answers():
        same = next((g for g in groups if _same(g[0], answer)), None)
        if same is None:
            groups.append([answer])
        else:
            same.append(answer)
    for group in groups:
        titles = [ANSWER_TITLES[a.kind] for a in group]
        title = " and ".join([", ".join(titles[:-1]), titles[-1]]) if len(titles) > 1 else titles[0]
        lines.extend(_answer_lines(group[0], result.options.ownership_months, title[0] + title[1:].lower()))
    if result.stretch is not None:
        s, fastest = result.stretch, result.fastest.setup
        extra = s.cost_usd - result.options.budget_usd
        gain = f", {s.throughput / fastest.throughput - 1:.0%} faster than the fastest" if fastest else ""
        lines.append(f"For ${extra:,.0f} more: {s.label} at ${s.cost_usd:,.0f}, throughput {s.throughput:.2f}x{gain}; "
                     f"{priced_words(s)}.")
    if (words := unpriced_words(result.unpriced)) is not None:
        lines.append(f"Note: {words}")
    for note in result.notes:
        lines.append(f"Note: {note}")
    lines.append("Assumed: " + "; ".join(result.assumptions) + ".")
    lines.append("Throughput is the setup's training speed relative to one "
                 f"{result.reference_gpu or 'reference card'} (1.00x).")
    return "\n".join(lines)
