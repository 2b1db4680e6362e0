"""stdin and stdout as file descriptors: all of the input, and all of the output or a failure.

kpt, kustomize and Argo CD keep whatever a function writes when it exits 0, so a short write must
never pass for the whole output. Python's file objects do not guarantee that on a descriptor its
parent left non-blocking (a pipe shared with a Node.js or Go parent): a buffered write raises
BlockingIOError midway, an unbuffered one returns None or a short count, and the rest is lost. Here
every write goes to the descriptor with os.write until all bytes are taken, waiting with poll() while
it is full. The O_NONBLOCK flag itself is left alone: it belongs to the open file the parent shares.

Only the standard library: the internal-error fallback needs this module when the rest of the
package cannot be imported.
"""

from __future__ import annotations

import os

# Pieces are gathered up to this size before a write: one system call per item would be slow.
CHUNK = 1 << 16


class WriteError(Exception):
    """The output could not be written in full; `written` bytes were."""

    def __init__(self, reason: str, written: int, broken_pipe: bool = False):
        super().__init__(reason)
        self.reason = reason
        self.written = written
        self.broken_pipe = broken_pipe


def _wait(fd: int, writable: bool) -> None:
    # No timeout: a slow reader (or writer) is waited for, as on a blocking descriptor. Imported
    # here: only a descriptor that would block gets here, and loading the extension module costs
    # every other run its time.
    import select

    if hasattr(select, "poll"):
        poller = select.poll()
        poller.register(fd, select.POLLOUT if writable else select.POLLIN)
        poller.poll()
    else:  # pragma: no cover - platforms without poll()
        select.select([] if writable else [fd], [fd] if writable else [], [])


def write_all(fd: int, data) -> int:
    """Write every byte of `data` to `fd`; returns how many (all). Raises OSError as os.write does,
    with the count written so far in its `written` attribute."""
    view = memoryview(data)
    total = len(view)
    done = 0
    while done < total:
        try:
            n = os.write(fd, view[done:])
        except BlockingIOError:
            _wait(fd, True)
            continue
        except OSError as e:
            e.written = done
            raise
        if n == 0:  # never for pipes and files; do not spin on a descriptor that takes nothing
            _wait(fd, True)
        done += n
    return done


def read_all(fd: int, limit: int) -> bytes:
    """At most `limit` + 1 bytes of `fd` (enough to know the input is too big, without holding all
    of it), to end of file, waiting while a non-blocking descriptor has nothing yet."""
    chunks, size = [], 0
    while size <= limit:
        try:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
        except BlockingIOError:
            _wait(fd, False)
            continue
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _fileno(stream) -> int | None:
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
        return None


def describe(e: OSError) -> str:
    import errno

    name = errno.errorcode.get(e.errno or 0, "")
    why = e.strerror or str(e) or type(e).__name__
    return f"{why} ({name})" if name else why


class Output:
    """One of stdout/stderr: text in, bytes written in full (or WriteError), counted.

    A stream without a descriptor (tests replace sys.stdout) is written through its own methods.
    None (the descriptor was closed before Python started: `cmd >&-`) fails on the first byte."""

    def __init__(self, stream, errors: str = "strict"):
        self.stream = stream
        self.errors = errors
        self.written = 0
        self.pending = bytearray()
        self.fd = None if stream is None else _fileno(stream)
        if self.fd is not None:
            try:  # whatever the file object holds goes first (nothing, normally)
                stream.flush()
            except (OSError, ValueError):
                pass

    def write(self, text: str) -> None:
        # Bytes, not text: KRM output is UTF-8 whatever the locale says, and a stray character must
        # not turn into an encoding traceback.
        if not text:
            return
        self.pending += text.encode("utf-8", self.errors)
        if len(self.pending) >= CHUNK:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        data, self.pending = self.pending, bytearray()
        if self.stream is None:
            raise WriteError("it was closed before the function started", self.written)
        if self.fd is None:
            self._write_stream(bytes(data))
            return
        try:
            self.written += write_all(self.fd, data)
        except BrokenPipeError as e:
            self.written += getattr(e, "written", 0)
            raise WriteError("the reader closed the pipe", self.written, broken_pipe=True) from None
        except OSError as e:
            self.written += getattr(e, "written", 0)
            raise WriteError(describe(e), self.written) from None

    def _write_stream(self, data: bytes) -> None:
        try:
            buffer = getattr(self.stream, "buffer", None)
            if buffer is not None:
                buffer.write(data)
                buffer.flush()
            else:
                self.stream.write(data.decode("utf-8"))
                self.stream.flush()
        except BrokenPipeError:
            raise WriteError("the reader closed the pipe", self.written, broken_pipe=True) from None
        except (OSError, ValueError) as e:
            raise WriteError(describe(e) if isinstance(e, OSError) else str(e), self.written) from None
        self.written += len(data)


def silence(stream) -> None:
    """Point the stream's descriptor at /dev/null, so nothing at exit tries the broken one again."""
    fd = None if stream is None else _fileno(stream)
    if fd is None:
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
    except OSError:
        pass
