"""Notebooks run at once, each in a kernel of its own, all stopped at once on an error or Ctrl-C.

A kernel runs in a session of its own (jupyter_client's ``start_new_session``), which Ctrl-C
does not reach: without :class:`Kernels`, an interrupted report would wait for every notebook
still running to end.
"""

from __future__ import annotations

import logging
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

PAPERMILL_LOG = logging.getLogger("papermill")  # nbclient logs there, through papermill


def workers(notebooks: int) -> int:
    """How many notebooks run at once: one per processor this process may use."""
    available = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return max(1, min(notebooks, available or os.cpu_count() or 1))


@contextmanager
def run_at_once(execute, paths: list[Path]):
    """``execute(path, kernel_manager_class)`` for every path, as many at once as
    :func:`workers` allows; yields the results in the order of ``paths``. An error or an
    interruption in the block kills every kernel started (:class:`Kernels`) and cancels the
    notebooks not started."""
    kernels = Kernels()
    try:
        with ThreadPoolExecutor(max_workers=workers(len(paths))) as pool:
            try:
                yield pool.map(lambda path: execute(path, kernels.manager_class), paths)
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                # nbclient logs each kernel killed ("Kernel died ..."): not the user's error.
                PAPERMILL_LOG.addFilter(kernels.silenced)
                kernels.stop()
                raise
    finally:
        PAPERMILL_LOG.removeFilter(kernels.silenced)


class Kernels:
    """The kernels started for one run, so that they can be stopped at once.

    ``manager_class`` is jupyter_client's ``AsyncKernelManager`` recording each kernel it
    starts. It overrides ``_async_post_start_kernel``, a private method: the last step of a
    start, when the kernel's process exists (``tests/test_report.py`` fails if that changes).
    """

    def __init__(self):
        from jupyter_client.manager import AsyncKernelManager

        self.stopped = threading.Event()
        self.started: list = []
        kernels = self

        class Manager(AsyncKernelManager):
            async def _async_post_start_kernel(self, **kw):
                kernels.started.append(self)
                await super()._async_post_start_kernel(**kw)
                if kernels.stopped.is_set():  # started while stop() ran: stopped here
                    _kill(self)

        self.manager_class = Manager

    def silenced(self, record) -> bool:
        """A logging filter: no record of this run's notebooks once they are stopped."""
        return not self.stopped.is_set()

    def stop(self) -> None:
        """Kill every kernel started, and any that finishes starting from now on (its
        notebook's thread then fails with the kernel dead, within a second)."""
        self.stopped.set()
        for manager in list(self.started):
            _kill(manager)


def _kill(manager) -> None:
    process = getattr(manager.provisioner, "process", None)  # None once shut down
    if process is not None:
        process.kill()  # nothing when it has already ended
