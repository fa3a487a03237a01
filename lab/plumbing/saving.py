"""Writing a file all at once, and only where the user meant it: check_output_path before the
work, save (and save_together for several) after it, each a whole file renamed into place."""
import contextlib
import os
import signal
import stat
import tempfile
import threading
from pathlib import Path

from lab.plumbing import cli, locations, reading


def json_with(*keys):
    """A test for check_output_path: the file is a JSON object with these keys."""
    def test(path):
        try:
            data = reading.strict_json(reading.read_text(path, '', locations.TOKENIZER_LIMIT))
        except (ValueError, RecursionError):
            return False
        return isinstance(data, dict) and all(key in data for key in keys)
    return test


def check_output_path(path, kind, is_kind, inputs=(), force=False,
                      fix='give --out another file name'):
    """Refuse, before any long work, an output the user cannot or should not mean: a folder,
    a device, a read-only file, one of the inputs, or a file that is not a `kind` (is_kind
    tells) unless force. A symlink is written through: its target is replaced, the link stays.
    fix: what the user can do instead (for a file in the folder --out names: another folder)."""
    shown_path, say, fix = path, cli.message, cli.phrase(fix)  # in the lab's language
    path = Path(os.path.realpath(path))
    if path.exists():
        mode = path.stat().st_mode
        if stat.S_ISDIR(mode):
            raise ValueError(say('saving.folder', path=shown_path, fix=fix))
        if not stat.S_ISREG(mode):
            raise ValueError(say('saving.not_regular', path=shown_path, fix=fix))
        if not mode & 0o222:
            raise ValueError(say('saving.read_only', path=shown_path, fix=fix))
        for source in inputs:
            if os.path.exists(source) and os.path.samefile(path, source):
                raise ValueError(say('saving.an_input', path=shown_path, fix=fix))
        if not force and not is_kind(path):
            raise ValueError(say('saving.other_kind', path=shown_path, kind=cli.phrase(kind)))
    if not path.parent.is_dir():
        raise ValueError(say('saving.no_folder', path=shown_path, folder=path.parent))
    try:  # the one sure way to know a folder is writable (root ignores the permission bits)
        fd, probe = tempfile.mkstemp(dir=path.parent, prefix='.probe-', suffix='.tmp')
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise ValueError(cli.message('saving.cannot_write', path=shown_path,
                                     why=cli.os_error(e))) from None
    return path


def save(data, path):
    """Write text or bytes to path all at once: a temporary file of our own beside it,
    flushed to disk, then renamed over it. A crash leaves the old file or the new one,
    never half; of two writers at once, the last rename wins with its whole file, and the
    other is told: what a lab says it saved is what is on disk."""
    save_together([(data, path)])


def save_together(files):
    """save() for several (data, path) that belong together (lab.prepare's .bin files and
    their meta.json): every file is written to its temporary first, and only when all of
    them are on disk are they renamed, in the order given. A full disk or a size limit met
    on the second file leaves every old file as it was; so does Ctrl-C."""
    staged = []  # (temporary, path, path as the user gave it, the temporary's inode)
    try:
        for data, path in files:
            staged.append(_staged_copy(data, path))
        with _signals_held():  # Ctrl-C or SIGTERM between two renames waits for the last
            for n, (tmp, path, shown_path, _) in enumerate(staged):
                try:
                    os.replace(tmp, path)
                except OSError as e:
                    raise ValueError(cli.message('saving.cannot_write', path=shown_path,
                                                 why=cli.os_error(e))) from None
                staged[n] = (None, *staged[n][1:])
    finally:
        for tmp, *_ in staged:
            if tmp and os.path.lexists(tmp):
                os.unlink(tmp)
    # a path given twice: its last
    last = {path: (shown_path, ours) for _, path, shown_path, ours in staged}
    for path, (shown_path, ours) in last.items():
        try:
            there = os.stat(path)
        except OSError:  # gone as soon as written: another program's doing too
            there = None
        if there is None or (there.st_dev, there.st_ino) != (ours.st_dev, ours.st_ino):
            raise ValueError(cli.message('saving.replaced', path=shown_path))


@contextlib.contextmanager
def _signals_held(signals=(signal.SIGINT, signal.SIGTERM)):
    """Ctrl-C and SIGTERM held back while the block runs, and taken as soon as it ends: their
    handlers only note them meanwhile (in the main thread, which alone may set handlers, and
    where Python runs them; from another thread the block runs as it is)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came = []
    before = {number: signal.signal(number, lambda number, _: came.append(number))
              for number in signals}
    try:
        yield
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)
        for number in came[:1]:  # as it would have been taken: its handler, or the default's
            if callable(before[number]):
                before[number](number, None)
            else:
                os.kill(os.getpid(), number)


def _staged_copy(data, path):
    """(temporary, real path, path as given, inode): data written to a temporary file beside
    path, on disk, with the permissions path has (or would get), not yet renamed over it. On
    any failure, Ctrl-C included, the temporary is gone."""
    shown_path, path = path, Path(os.path.realpath(path))  # through a symlink: the link stays
    data = data.encode('utf-8') if isinstance(data, str) else data
    try:
        mode = stat.S_IMODE(path.stat().st_mode)  # keep the permissions it had
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        mode = 0o666 & ~mask
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f'.{path.name}.', suffix='.tmp')
    except OSError as e:
        raise ValueError(cli.message('saving.cannot_write', path=shown_path,
                                     why=cli.os_error(e))) from None
    try:
        with os.fdopen(fd, 'wb') as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
            ours = os.fstat(f.fileno())
        os.chmod(tmp, mode)
    except BaseException as e:
        os.unlink(tmp)
        if isinstance(e, OSError):
            why = cli.os_error(e)
            raise ValueError(cli.message('saving.cannot_write', path=shown_path, why=why)) from None
        raise
    return tmp, path, shown_path, ours
