"""The tutor's children are forked by a fork server (lab/selfcheck/forks.py), one Python started
once for each hash seed: a check after the first starts no new Python, the learner's code meets
a process as fresh as a Python started for it, a waiter or a server that code stops holds the
tutor seconds at most, what the code leaves ends with its check or with the tutor, and no child
to be had is one line."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path
from unittest import mock

from lab.learner import catalogs
from lab.selfcheck import check, runner
from tests.project import LESSON_FILES, ROOT, parent, run_inside, still_alive

LESSON = (LESSON_FILES / 'tokenizer.py').read_text(encoding='utf-8')


def writing_at_import(path, expression):
    """The lesson's file, which writes expression (as JSON) to path as it is imported."""
    return LESSON.replace('import json\n', f'import json\nimport os\nimport sys\n'
                          f'open({str(path)!r}, "a").write(json.dumps({expression}) + "\\n")\n', 1)


@unittest.skipUnless(sys.platform.startswith('linux'), 'finds processes in /proc')
class ForkServerTest(unittest.TestCase):
    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.folder = Path(folder.name)

    def first_line(self, path):
        return json.loads(path.read_text(encoding='utf-8').splitlines()[0])

    def test_a_check_after_the_first_starts_no_new_python_but_forks_one(self):
        found = []
        for n in range(2):
            path = self.folder / f'{n}.json'
            check.check_many([writing_at_import(path, '[os.getpid(), os.getppid()]')],
                             check.lesson(), hash_seed=False)
            child, waiter = self.first_line(path)
            found.append((child, parent(waiter)))
        servers = {server.pid for server, _ in runner.SERVERS.values()}
        (first, server), (second, again) = found
        self.assertNotEqual(first, second)
        self.assertEqual(server, again)
        self.assertIn(server, servers)

    def test_the_learners_code_meets_a_fresh_process_with_the_tutors_environment_of_now(self):
        path = self.folder / 'seen.json'
        seen = ("{'modules': [name for name in ('tokenizer', 'lab.selfcheck.forks') "
                "if name in sys.modules and name != __name__], 'stdin': sys.stdin.read(), "
                "'stderr_seeks': sys.stderr.seekable(), 'argv': sys.argv, "
                "'set_since': os.environ.get('XSLM_SET_SINCE'), "
                "'mark': 'XSLM_TUTOR_CHILD' in os.environ, "
                # the files open above stderr, but this one and the listing's own
                "'open': [os.readlink(p).split(':')[0] for fd in os.listdir('/proc/self/fd') "
                "for p in ['/proc/self/fd/' + fd] if int(fd) > 2 and os.path.exists(p) "
                f"and not os.readlink(p).startswith(('/proc/', {str(path)!r}))]}}")
        check.check_many([LESSON], check.lesson(), hash_seed=False)  # the server, started
        with mock.patch.dict(os.environ, XSLM_SET_SINCE='yes'):
            check.check_many([writing_at_import(path, seen)], check.lesson(), hash_seed=False)
        self.assertEqual(self.first_line(path),
                         {'modules': ['lab.selfcheck.forks'], 'stdin': '', 'stderr_seeks': False,
                          'argv': ['-c'], 'set_since': 'yes', 'mark': True,
                          'open': ['pipe']})  # the answer pipe alone: no socket of the server's

    def test_the_server_ends_when_the_tutor_is_killed_outright(self):
        code = ('from lab.selfcheck import check, runner; import time\n'
                f'check.check_many([{LESSON!r}], check.lesson(), hash_seed=False)\n'
                'print(*[server.pid for server, _ in runner.SERVERS.values()], flush=True)\n'
                'time.sleep(60)\n')
        tutor = subprocess.Popen([sys.executable, '-c', code], cwd=ROOT, text=True,
                                 stdout=subprocess.PIPE)
        try:
            servers = [int(pid) for pid in tutor.stdout.readline().split()]
        finally:
            tutor.send_signal(signal.SIGKILL)
            tutor.wait()
            tutor.stdout.close()
        self.assertEqual(len(servers), 1)
        self.assertEqual(still_alive(servers), [])

    def test_code_that_stops_its_waiter_and_the_server_holds_the_tutor_seconds_at_most(self):
        # the waiter (the child's parent) and the server (its grandparent), stopped: the tutor
        # kills them when they say nothing in time, and the next check has a server anew
        stops = LESSON.replace('import json\n', 'import json\nimport os\nimport signal\n'
                               'server = int(open(f"/proc/{os.getppid()}/stat").read()'
                               '.rsplit(")", 1)[1].split()[1])\n'
                               'os.kill(server, signal.SIGSTOP)\n'
                               'os.kill(os.getppid(), signal.SIGSTOP)\n', 1)
        with mock.patch.object(runner, 'STARTING', 0.5), mock.patch.object(runner, 'ENDING', 0.5):
            stopped = check.check_many([stops], check.lesson(), hash_seed=False)[0]
            after = check.check_many([LESSON], check.lesson(), hash_seed=False)[0]
        self.assertEqual(stopped['rule_imports'][0], 'passed')
        self.assertEqual({state for state, _ in after.values()}, {'passed'})

    def test_what_the_code_leaves_after_killing_its_waiter_ends_with_the_tutor(self):
        # one process as forked (with the server's mark in its environment), one that runs
        # another program with no environment at all: neither mark finds it
        pids = self.folder / 'pids'
        leaves = LESSON.replace('import json\n', 'import json\nimport os\nimport signal\n'
                                'import sys\nimport time\n'
                                'for wiped in (False, True):\n'
                                '    if os.fork() == 0:\n'
                                '        os.setsid()\n'
                                f'        open({str(pids)!r}, "a").write(f"{{os.getpid()}}\\n")\n'
                                '        if wiped:\n'
                                '            os.execve(sys.executable, [sys.executable, "-c", '
                                '"import time; time.sleep(60)"], {})\n'
                                '        time.sleep(60)\n'
                                '        os._exit(0)\n'
                                'time.sleep(0.2)\n'
                                'os.kill(os.getppid(), signal.SIGKILL)\n'
                                'os._exit(0)\n', 1)  # the child too: the processes are orphans
        code = ('from lab.selfcheck import check\n'
                f'check.check_many([{leaves!r}], check.lesson(), hash_seed=False)\n')
        subprocess.run([sys.executable, '-c', code], cwd=ROOT, timeout=120, check=True)
        left = [int(pid) for pid in pids.read_text(encoding='utf-8').split()]
        self.assertEqual(len(left), 2)
        self.assertEqual(still_alive(left), [])

    def test_no_child_to_be_had_is_one_line_in_the_learners_language(self):
        (self.folder / 'tokenizer.py').write_text(LESSON, encoding='utf-8')
        korean = catalogs.catalog('ko')
        with mock.patch.object(runner, 'pids_said', return_value=None):  # no server forks one
            code, out, err = run_inside(ROOT, 'selfcheck', str(self.folder / 'tokenizer.py'),
                                        '--lang', 'ko')
        self.assertEqual((code, err), (1, f'lab.selfcheck: {korean["no_child"]}\n'))

    def test_a_process_that_forks_and_ends_again_and_again_is_ended_with_its_check(self):
        beats = self.folder / 'beats'  # a byte for each process of the chain
        chain = LESSON.replace('import json\n', 'import json\nimport os\n'
                               f'if not os.path.exists({str(beats)!r}) and os.fork() == 0:\n'
                               '    os.setsid()\n'
                               f'    beat = os.open({str(beats)!r}, os.O_WRONLY | os.O_CREAT | '
                               'os.O_APPEND)\n'
                               '    while True:\n'
                               "        os.write(beat, b'.')\n"
                               '        if os.fork():\n'
                               '            os._exit(0)\n', 1)
        check.check_many([chain], check.lesson(), hash_seed=False)
        before = beats.stat().st_size
        time.sleep(0.5)
        self.assertGreater(before, 0)
        self.assertEqual(beats.stat().st_size, before)  # no process of it is left to write
