"""scripts/engines' fetching, offline: a tarball whose sha512 differs from its pin is refused and
leaves nothing behind; one that matches is unpacked (only its library folder), and a cached one is
used again without a download.
usage: engines_fetch_test.py SCRATCH_DIR
"""
import base64
import hashlib
import io
import pathlib
import shutil
import sys
import tarfile
import unittest
from unittest import mock

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
from engine_kit import packages  # noqa: E402

SCRATCH = pathlib.Path(sys.argv.pop(1))


def tarball(files):
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def sri(data):
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


class Response(io.BytesIO):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class FetchTest(unittest.TestCase):
    def setUp(self):
        shutil.rmtree(SCRATCH, ignore_errors=True)
        self.data = tarball({"package/bins/linux-x64/libengine.so": b"\x7fELF not really",
                             "package/package.json": b"{}"})
        self.downloads = 0

    def serve(self, data):
        def urlopen(url, timeout):
            self.downloads += 1
            return Response(data)
        return mock.patch.object(packages.urllib.request, "urlopen", urlopen)

    def test_a_tarball_off_its_pin_is_refused_and_left_nowhere(self):
        package = packages.Package("@engine/linux-x64", "1.0.0", sri(self.data), "package/bins/linux-x64")
        tampered = self.data[:-1] + bytes([self.data[-1] ^ 1])
        with self.serve(tampered), self.assertRaisesRegex(packages.FetchError, "sha512 is .*, pinned .*: refused"):
            packages.fetch(package, SCRATCH, lambda text: None)
        self.assertEqual(sorted(p.name for p in SCRATCH.iterdir()), [])

    def test_a_matching_tarball_is_unpacked_and_then_used_offline(self):
        package = packages.Package("@engine/linux-x64", "1.0.0", sri(self.data), "package/bins/linux-x64")
        with self.serve(self.data):
            lib_dir = packages.fetch(package, SCRATCH, lambda text: None)
            self.assertEqual((lib_dir / "libengine.so").read_bytes(), b"\x7fELF not really")
            self.assertFalse((lib_dir.parent.parent / "package.json").exists())  # only the library folder
            again = packages.fetch(package, SCRATCH, lambda text: None)
        self.assertEqual((again, self.downloads), (lib_dir, 1))


if __name__ == "__main__":
    unittest.main()
