"""``python -m creatures ARGS...`` in a fresh process without a fresh interpreter's imports.

A command started with ``subprocess`` spends about 1.7 s importing numpy, numba and the project
before ``main`` runs (2-core CI machine), and the suite starts a few hundred of them. Here one
server process per test worker imports what ``python -m creatures`` imports before calling
``main`` (``creatures.cli``, nothing more: no kernel is loaded, no window opened) and forks a
child for each command. The child is what a fresh ``python -m creatures`` would be when ``main``
starts: its own process, the same modules imported, ``sys.argv``, ``sys.path[0]``, ``__main__``
and the working directory as ``-m`` sets them, stdin from /dev/null, stdout and stderr to files,
the interpreter's own exit (atexit handlers, flushing, the exit status of ``sys.exit`` or a
traceback). Where the environment differs from the server's (a test changed a variable), or the
server cannot start, the command runs in a real fresh interpreter instead.
"""

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

SERVER = r"""
import json, os, runpy, signal, sys, time
sys.path[0] = os.getcwd()               # as `python -m` sets it
import creatures.cli                     # what `python -m creatures` imports before main()

def reap(pid):                           # the child's end, given 30 s (it had the Ctrl-C too)
    end = time.monotonic() + 30.0
    while os.waitpid(pid, os.WNOHANG) == (0, 0):
        if time.monotonic() > end:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return
        time.sleep(0.05)

def serve():
    print(json.dumps({"ready": os.getpid()}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            return request
        print(json.dumps({"pid": pid}), flush=True)
        try:
            _, status = os.waitpid(pid, 0)
        except KeyboardInterrupt:        # the session stopped (Ctrl-C), and the child with it
            reap(pid)
            raise
        print(json.dumps({"returncode": os.waitstatus_to_exitcode(status)}), flush=True)
    os._exit(0)

try:
    request = serve()
except KeyboardInterrupt:                # the session stopped (Ctrl-C): quietly
    os._exit(130)
os.chdir(request["cwd"])
sys.path[0] = os.getcwd()
for fd, path, flags in ((0, os.devnull, os.O_RDONLY),
                        (1, request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                        (2, request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)):
    opened = os.open(path, flags, 0o600)
    os.dup2(opened, fd)
    os.close(opened)
if request["test"] is not None:
    os.environ["PYTEST_CURRENT_TEST"] = request["test"]
else:
    os.environ.pop("PYTEST_CURRENT_TEST", None)
sys.stdin = open(0, closefd=False)      # not the server's stdin buffer, which held the requests
sys.argv = ["-m", *request["argv"]]
runpy.run_module("creatures", run_name="__main__", alter_sys=True)
"""


class ForkServer:
    """Runs ``python -m creatures ARGS...`` in children of one pre-imported process;
    :meth:`run` returns what ``subprocess.run(..., capture_output=True, text=True)`` would."""

    def __init__(self, cwd: Path):
        self.cwd = Path(cwd)
        self.env = self._environment()
        self.folder = Path(tempfile.mkdtemp(prefix="creatures-forkserver-"))
        try:
            self.server = subprocess.Popen([sys.executable, "-c", SERVER], cwd=self.cwd,
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            ready = self._reply(120)
            self.alive = ready is not None and "ready" in ready
        except OSError:
            self.server, self.alive = None, False

    @staticmethod
    def _environment():
        """The environment but for the variable pytest changes at every test (the child gets it)."""
        return {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}

    def _reply(self, timeout):
        if not select.select([self.server.stdout], [], [], timeout)[0]:
            return None
        line = self.server.stdout.readline()
        return json.loads(line) if line else None

    def run(self, argv, cwd=None, timeout=300) -> subprocess.CompletedProcess:
        """``python -m creatures *argv`` from ``cwd`` (the server's by default)."""
        argv, cwd = [str(a) for a in argv], Path(cwd or self.cwd).resolve()
        command = [sys.executable, "-m", "creatures", *argv]
        if not self.alive or self._environment() != self.env:
            return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)
        out, err = self.folder / "stdout", self.folder / "stderr"
        try:
            self.server.stdin.write(json.dumps({"argv": argv, "cwd": str(cwd), "stdout": str(out),
                                                "stderr": str(err),
                                                "test": os.environ.get("PYTEST_CURRENT_TEST")}) + "\n")
            self.server.stdin.flush()
            started = self._reply(60)
        except OSError:
            started = None
        if started is None:                       # the server is gone: fresh interpreters from now on
            self.alive = False
            return self.run(argv, cwd, timeout)
        done = self._reply(timeout)
        if done is None:                          # as subprocess.run: kill the child, then raise
            os.kill(started["pid"], signal.SIGKILL)
            self._reply(60)
            raise subprocess.TimeoutExpired(command, timeout, output=self._read(out), stderr=self._read(err))
        return subprocess.CompletedProcess(command, done["returncode"], self._read(out), self._read(err))

    @staticmethod
    def _read(path: Path) -> str:
        with open(path, encoding=None, newline=None) as f:   # text=True's decoding and newlines
            return f.read()

    def close(self):
        if self.server is not None:
            try:
                self.server.stdin.close()
            except OSError:
                pass
            self.server.wait(timeout=60)
        for path in self.folder.iterdir():
            path.unlink()
        self.folder.rmdir()
