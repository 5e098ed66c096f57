"""What the command-line tools share about their output: file modes and a closed stdout."""
import os
import sys


def new_file_mode(path):
    """Keep an existing file's permissions; a new file gets 0666 minus the umask, like clang
    (tempfile.mkstemp creates 0600 files: outputs made through one are chmod-ed to this)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def stdout_closed():
    """Call after a BrokenPipeError on stdout (`clcoop-layout ... | head -1`): stop quietly.

    Points stdout at /dev/null so that the interpreter's final flush does not report the
    broken pipe again (the recipe of Python's signal module documentation)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
