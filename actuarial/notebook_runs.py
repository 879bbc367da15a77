"""Notebooks run at once, each in a kernel of its own, all stopped at once on an error or Ctrl-C.

A kernel runs in a session of its own (jupyter_client's ``start_new_session``), which Ctrl-C
does not reach: without :class:`Kernels`, an interrupted report would wait for every notebook
still running to end.

A kernel is reached through files (ZeroMQ's ``ipc`` transport) where the system has them
(:func:`kernel_manager_class`): over TCP, jupyter_client picks ports that are free, closes
them, and the kernel binds them a second or more later; another kernel or connection of any
process may take one in between, and the kernel dies ("Address already in use").
"""

from __future__ import annotations

import itertools
import logging
import os
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

PAPERMILL_LOG = logging.getLogger("papermill")  # nbclient logs there, through papermill


# Where a kernel's libraries keep their configuration and caches, in the user's home unless
# told: a run keeps them in its own folder, so that it writes nothing outside what it was
# given, and a home that cannot be written puts no warning (with paths) on a page.
KERNEL_CONFIG_FOLDERS = {"MPLCONFIGDIR": "matplotlib", "IPYTHONDIR": "ipython"}


def kernel_manager_class(folder):
    """jupyter_client's ``AsyncKernelManager`` whose kernels keep their libraries'
    configuration and caches in ``folder`` (:data:`KERNEL_CONFIG_FOLDERS`) and listen on
    files in it (``folder``: an existing folder of the caller's, removed after the run, with
    a short path: a socket's path is at most about 100 bytes), one name per kernel, where
    the system has such sockets (POSIX); on others, on TCP ports, jupyter_client's default."""
    from jupyter_client.manager import AsyncKernelManager

    names = itertools.count(1)
    config = {name: os.path.join(folder, sub) for name, sub in KERNEL_CONFIG_FOLDERS.items()}

    class RunKernelManager(AsyncKernelManager):
        def __init__(self, **options):
            super().__init__(**options)
            if os.name == "posix":
                self.transport = "ipc"
                self.ip = os.path.join(folder, str(next(names)))  # "<ip>-1", "<ip>-2", ...

        async def start_kernel(self, **options):
            options["env"] = {**os.environ, **options.get("env", {}), **config}
            return await super().start_kernel(**options)

    return RunKernelManager


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
        with kernels, ThreadPoolExecutor(max_workers=workers(len(paths))) as pool:
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

    ``manager_class`` is :func:`kernel_manager_class`'s, its sockets in a temporary folder
    of the run (removed on leaving the run's ``with``), recording each kernel it starts. It
    overrides ``_async_post_start_kernel``, a private method: the last step of a start, when
    the kernel's process exists (``tests/test_report.py`` fails if that changes).
    """

    def __init__(self):
        self.stopped = threading.Event()
        self.started: list = []
        self.sockets = tempfile.TemporaryDirectory(prefix="kernels-")
        kernels = self

        class Manager(kernel_manager_class(self.sockets.name)):
            async def _async_post_start_kernel(self, **kw):
                kernels.started.append(self)
                await super()._async_post_start_kernel(**kw)
                if kernels.stopped.is_set():  # started while stop() ran: stopped here
                    _kill(self)

        self.manager_class = Manager

    def __enter__(self) -> Kernels:
        return self

    def __exit__(self, *exc) -> None:
        self.sockets.cleanup()

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
