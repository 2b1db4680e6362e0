"""kpt_fn.stdio: all of the input, and all of the output or a failure that says how much was written."""

from __future__ import annotations

import fcntl
import io
import os
import threading

import pytest

from kpt_fn import stdio


@pytest.fixture
def pipe():
    r, w = os.pipe()
    yield r, w
    for fd in (r, w):
        try:
            os.close(fd)
        except OSError:
            pass


def _drain(fd, out):
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return
        out.append(chunk)


def test_write_all_on_a_non_blocking_pipe_waits_until_everything_is_taken(pipe):
    r, w = pipe
    fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)
    data = bytes(range(256)) * 4096  # 1 MiB: more than a pipe holds
    got = []
    reader = threading.Thread(target=_drain, args=(r, got))
    reader.start()
    assert stdio.write_all(w, data) == len(data)
    os.close(w)
    reader.join()
    assert b"".join(got) == data


def test_write_all_reports_how_much_was_written(pipe):
    r, w = pipe
    os.close(r)
    with pytest.raises(BrokenPipeError) as e:
        stdio.write_all(w, b"x")
    assert e.value.written == 0


def test_read_all_reads_to_the_end_or_one_byte_past_the_limit(pipe):
    r, w = pipe
    os.write(w, b"abcdef")
    os.close(w)
    assert stdio.read_all(r, 100) == b"abcdef"
    r2, w2 = os.pipe()
    os.write(w2, b"abcdef")
    os.close(w2)
    assert stdio.read_all(r2, 3) == b"abcd"  # enough to know it is too big
    os.close(r2)


def test_output_through_a_descriptor_in_chunks(pipe):
    r, w = pipe
    with os.fdopen(os.dup(w), "w") as stream:
        out = stdio.Output(stream)
        out.write("ünï")
        out.write("")
        assert out.written == 0  # gathered until a chunk or a flush
        out.flush()
        assert out.written == len("ünï".encode())
    os.close(w)
    assert os.read(r, 100) == "ünï".encode()


def test_output_to_a_stream_without_a_descriptor():
    for stream, value in ((io.StringIO(), "ab\n"), (io.TextIOWrapper(io.BytesIO(), encoding="utf-8"), "ab\n")):
        out = stdio.Output(stream)
        out.write("ab\n")
        out.flush()
        assert out.written == 3


def test_output_to_a_closed_stdout_fails_on_the_first_byte():
    out = stdio.Output(None)
    out.write("")
    out.flush()  # nothing pending: nothing fails
    out.write("x")
    with pytest.raises(stdio.WriteError, match="closed before the function started") as e:
        out.flush()
    assert e.value.written == 0


def test_output_to_a_closed_pipe_is_a_broken_pipe(pipe):
    r, w = pipe
    os.close(r)
    with os.fdopen(os.dup(w), "w") as stream:
        out = stdio.Output(stream)
        out.write("x")
        with pytest.raises(stdio.WriteError) as e:
            out.flush()
    assert e.value.broken_pipe and e.value.reason == "the reader closed the pipe"


def test_describe():
    assert stdio.describe(OSError(28, "No space left on device")) == "No space left on device (ENOSPC)"
    assert stdio.describe(OSError("odd")) == "odd"


def test_silence_points_the_descriptor_at_dev_null(pipe):
    r, w = pipe
    with os.fdopen(os.dup(w), "w") as stream:
        stdio.silence(stream)
        os.write(stream.fileno(), b"gone")
    os.close(w)
    assert os.read(r, 10) == b""
    stdio.silence(None)
    stdio.silence(io.StringIO())  # no descriptor: nothing to do
