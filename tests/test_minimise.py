"""Delta debugging (conformance/minimise.py): a 1-minimal failing subsequence, each subsequence
asked once; `cardid shrink` (tests/test_shrink.py) runs it over cases."""

from __future__ import annotations

from cardid_conformance.minimise import ddmin


def test_ddmin_finds_a_one_minimal_subset_asking_each_subset_once() -> None:
    asked: list[tuple[int, ...]] = []

    def fails(subset: tuple[int, ...]) -> bool:
        asked.append(subset)
        return {3, 7, 30} <= set(subset)

    assert ddmin(range(50), fails) == (3, 7, 30)
    assert len(asked) == len(set(asked)) < 150


def test_ddmin_keeps_the_whole_when_nothing_can_go() -> None:
    assert ddmin(range(4), lambda subset: len(subset) == 4) == (0, 1, 2, 3)
