"""CPU test of bench/timing/sort_kernel_time.py on a hand-written Nsight Compute CSV."""

from __future__ import annotations

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "bench", "timing"))

import sort_kernel_time as skt  # noqa: E402


def ncu_csv(kernels) -> str:
    """An `ncu --csv --page raw --print-units base` export of the given (name, grid, ns)."""
    lines = ['"ID","Kernel Name","Grid Size","gpu__time_duration.sum"', '"","","","nsecond"']
    lines += [f'"{i}","{name}","{grid}","{ns}"' for i, (name, grid, ns) in enumerate(kernels)]
    return "==PROF== Connected\n" + "\n".join(lines) + "\n"


class SortKernelTimeTest(unittest.TestCase):
    def test_one_call_is_the_repeating_kernel_sequence(self) -> None:
        call = [("count", "(64, 1, 1)", 1000.0), ("scan", "(1, 1, 1)", 500.0),
                ("count", "(64, 1, 1)", 1000.0), ("scatter", "(64, 1, 1)", 2000.0)]
        generate = [("sortlab::bench::generate_keys_kernel(unsigned int *, ...)", "(256, 1, 1)",
                     90.0)] * 3
        kernels = skt.parse_ncu_csv(ncu_csv(generate + call * 5))
        self.assertEqual(len(kernels), 20)
        self.assertEqual(skt.call_period(kernels), 4)  # "count" repeats inside a call
        period, sums = skt.per_call_ms(kernels)
        self.assertEqual(period, 4)
        self.assertEqual(sums, [0.0045] * 5)

    def test_identical_passes_need_the_call_count(self) -> None:
        # A two-pass sort whose passes launch the same kernels: the smallest repeating unit is
        # one pass, so only --calls gives the per-call sum.
        one_pass = [("count", "(64, 1, 1)", 1000.0), ("scatter", "(64, 1, 1)", 2000.0)]
        kernels = skt.parse_ncu_csv(ncu_csv(one_pass * 2 * 3))  # three calls of two passes
        self.assertEqual(skt.per_call_ms(kernels)[0], 2)  # a pass, not a call
        period, sums = skt.per_call_ms(kernels, calls=3)
        self.assertEqual(period, 4)
        self.assertEqual(sums, [0.006] * 3)
        with self.assertRaises(ValueError):
            skt.per_call_ms(kernels, calls=4)  # 12 kernels are not 4 equal calls of 3
        with self.assertRaises(ValueError):  # equal lengths, different kernels
            skt.per_call_ms(skt.parse_ncu_csv(ncu_csv(one_pass + [("x", "1", 1.0)] * 2)), calls=2)

    def test_no_repetition_is_an_error(self) -> None:
        kernels = skt.parse_ncu_csv(ncu_csv([("a", "1", 1.0), ("b", "1", 1.0), ("c", "1", 1.0)]))
        self.assertIsNone(skt.call_period(kernels))
        with self.assertRaises(ValueError):
            skt.per_call_ms(kernels)


if __name__ == "__main__":
    unittest.main()
