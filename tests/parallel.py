"""The suite on two cores: python3 -m unittest runs the test modules in two processes at once.

Most of the suite's time goes to Python processes it starts (a lab, the tutor's children,
tokenizer.py as a learner runs it) and waits on. Before any test module is imported, this
process forks once; then each of the two takes the name of a module from a shared queue (a
pipe of module numbers, two bytes each, which the kernel hands out whole to one reader),
imports it, runs its tests and takes the next, until none is left. The fork writes down what
became of each of its tests; this process reports them as its own, so that the runner prints,
counts and judges them as any other (a failure there shows the traceback it had there).

The modules go longest first (by their size), so that neither process waits long for the
other at the end. A module's threads and processes begun at import (tests.project.started)
belong to the process that runs it.

In one process instead: a run of named modules or tests (python3 -m unittest tests.test_kinds),
a machine of one core, a system without fork, under pytest, or with XSLM_TESTS_IN_ONE=1.
"""
import importlib
import json
import os
import tempfile
import traceback
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
QUEUE_ITEM = 2  # bytes for a module's number: up to 65,535 modules


def load_tests(loader, standard_tests, pattern):
    """unittest's hook for the package: its modules, to be run in two processes where that pays."""
    names = sorted((path for path in HERE.glob(pattern or 'test*.py')),
                   key=lambda path: -path.stat().st_size)
    names = [f'{__package__}.{path.stem}' for path in names]
    if os.environ.get('XSLM_TESTS_IN_ONE') or (os.cpu_count() or 1) < 2 or not hasattr(os, 'fork'):
        standard_tests.addTests(loaded(loader, name) for name in names)
        return standard_tests
    standard_tests.addTest(InTwo(loader, names))
    return standard_tests


def loaded(loader, name):
    """The tests of module name, as discovery loads them: a module that raises SkipTest as it is
    imported (tests/gate.py, when tokenizer.py is not typed yet) is one skipped test, and one that
    cannot be imported is one error, the rest of the suite run all the same."""
    try:
        module = importlib.import_module(name)
    except unittest.SkipTest as e:
        return unittest.loader._make_skipped_test(name, e, loader.suiteClass)
    except Exception:
        return unittest.loader._make_failed_import_test(name, loader.suiteClass)[0]
    return loader.loadTestsFromModule(module)


class Remote(Exception):
    """A failure or error in the other process: its message is the traceback as it was there."""


class Described:
    """A test of the other process that this one does not hold (a class's setUpClass, a subtest),
    as the runner shows it."""
    failureException = AssertionError

    def __init__(self, description):
        self.description = description

    def __str__(self):
        return self.description

    def id(self):
        return self.description

    def shortDescription(self):
        return None


class Recorder(unittest.TestResult):
    """What became of each test in the fork, as lines of JSON a TestResult can be told again."""

    def __init__(self, out):
        super().__init__()
        self.out = out

    def record(self, event, test, err=None, **more):
        more.update(event=event, test=test.id(), str=str(test))
        if err is not None:
            more['err'] = self._exc_info_to_string(err, test)
        self.out.write(json.dumps(more) + '\n')
        self.out.flush()

    def startTest(self, test):
        super().startTest(test)
        self.record('start', test)

    def addSuccess(self, test):
        self.record('success', test)

    def addFailure(self, test, err):
        self.record('failure', test, err)

    def addError(self, test, err):
        self.record('error', test, err)

    def addSkip(self, test, reason):
        self.record('skip', test, reason=reason)

    def addExpectedFailure(self, test, err):
        self.record('expected failure', test, err)

    def addUnexpectedSuccess(self, test):
        self.record('unexpected success', test)

    def addSubTest(self, test, subtest, err):
        if err is not None:
            failed = issubclass(err[0], test.failureException)
            self.record('subtest', test, err, subtest=str(subtest), failed=failed)

    def addDuration(self, test, elapsed):  # Python 3.12 and later
        self.record('duration', test, elapsed=elapsed)

    def stopTest(self, test):
        self.record('stop', test)


class InTwo(unittest.TestSuite):
    """The test modules named, run in this process and a fork of it, each taking the next from a
    queue; the fork's results told to this one's result at the end."""

    def __init__(self, loader, names):
        super().__init__()
        self.loader, self.names = loader, names
        self.queue, writer = os.pipe()
        os.write(writer, b''.join(n.to_bytes(QUEUE_ITEM, 'big') for n in range(len(names))))
        os.close(writer)  # readers see the end of the queue once it is empty
        self.log = tempfile.TemporaryFile('w+', encoding='utf-8')
        self.fork = os.fork()
        if self.fork == 0:
            self.run_in_fork()

    def countTestCases(self):
        return 0  # not known before the modules are imported; the runner counts what ran

    def modules(self):
        """The test suites of the modules this process takes from the queue, one by one."""
        while True:
            item = os.read(self.queue, QUEUE_ITEM)
            if len(item) < QUEUE_ITEM:
                return
            yield loaded(self.loader, self.names[int.from_bytes(item, 'big')])

    def run_in_fork(self):
        """The fork's whole life: its share of the modules, written down, then its end."""
        code = 0
        try:
            recorder = Recorder(self.log)
            for suite in self.modules():
                suite.run(recorder)
        except KeyboardInterrupt:  # Ctrl-C reaches both processes: the other one says it
            code = 130
        except BaseException:
            traceback.print_exc()
            code = 1
        finally:
            self.log.flush()
            os._exit(code)

    def run(self, result, debug=False):
        try:
            for suite in self.modules():
                suite.run(result)
                if result.shouldStop:
                    break
        except BaseException:
            os.kill(self.fork, 9)
            raise
        finally:
            _, status = os.waitpid(self.fork, 0)
        self.tell(result, os.waitstatus_to_exitcode(status) if hasattr(os, 'waitstatus_to_exitcode')
                  else status >> 8)
        return result

    def tell(self, result, code):
        """The fork's results, told to result as if its tests had run here."""
        tests = {}
        self.log.seek(0)
        for line in self.log:
            said = json.loads(line)
            test = tests.setdefault(said['test'], Described(said['str']))
            event = said['event']
            err = (Remote, Remote(said['err']), None) if 'err' in said else None
            if event == 'start':
                result.startTest(test)
            elif event == 'stop':
                result.stopTest(test)
            elif event == 'success':
                result.addSuccess(test)
            elif event in ('failure', 'error'):
                (result.addFailure if event == 'failure' else result.addError)(test, err)
            elif event == 'skip':
                result.addSkip(test, said['reason'])
            elif event == 'expected failure':
                result.addExpectedFailure(test, err)
            elif event == 'unexpected success':
                result.addUnexpectedSuccess(test)
            elif event == 'subtest':
                (result.addFailure if said['failed'] else result.addError)(Described(
                    f"{said['str']} {said['subtest'].removeprefix(said['str']).strip()}"), err)
            elif event == 'duration' and hasattr(result, 'addDuration'):
                result.addDuration(test, said['elapsed'])
        if code:
            holder = Described(f'the other process of the tests (exit code {code})')
            result.addError(holder, (Remote, Remote('it ended before all its tests were told'), None))
        self.log.close()
