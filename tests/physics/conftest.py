"""Fixtures shared by the physics tests; body builders and reference measurements live in
``physics_helpers.py`` next to this file."""

import numba
import numpy as np
import pytest


@pytest.fixture
def rng():
    """A fixed-seed generator, so that a failure reproduces."""
    return np.random.default_rng(20240611)


@pytest.fixture
def numba_threads():
    """``set(n)`` changes numba's thread count for the test; the old count comes back after."""
    old = numba.get_num_threads()
    yield numba.set_num_threads
    numba.set_num_threads(old)
