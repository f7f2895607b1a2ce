"""Readies the test process as the ``creatures`` command readies its own, before any test module is
imported: ``OMP_WAIT_POLICY``, and numba's caches of ``physics`` and ``evolution`` cleared if
their sources changed (otherwise, after an edit of physics, the tests would run the kernels
compiled from the old sources). Importing the packages no longer does it."""

import evolution

evolution.prepare_process()
