"""The engine packages scripts/engines judges, pinned by version and npm's sha512, and their fetching.

A package is downloaded from the npm registry as its tarball (no npm, so no install scripts run),
checked against the pinned sha512 before anything is unpacked, and unpacked into the cache; a
cached tarball that still matches its pin is used offline.
"""
import base64
import dataclasses
import hashlib
import os
import pathlib
import subprocess
import urllib.request


@dataclasses.dataclass(frozen=True)
class Package:
    npm: str        # the package's npm name
    version: str
    integrity: str  # npm's dist.integrity: sha512 of the tarball, base64 (the registry's own record)
    lib_dir: str    # the folder of the native libraries inside the tarball

    @property
    def url(self):
        return f"https://registry.npmjs.org/{self.npm}/-/{self.npm.split('/')[-1]}-{self.version}.tgz"

    @property
    def stem(self):
        return f"{self.npm.replace('@', '').replace('/', '-')}-{self.version}"


# Values from `npm view <package>@<version> dist.integrity` (2026-12); a tarball that differs is refused.
NODE_LLAMA_CPP_3_21_1 = Package(
    "@node-llama-cpp/linux-x64", "3.21.1",
    "sha512-Totj6RTDMGo3FoK2yNUaz/oGmZD0olAqTrRluFUWmu0kW2i9TOzHSW0OWCAiGkzRCVX0WsU2CyUQo/W2NYtdPA==",
    "package/bins/linux-x64")
NODE_LLAMA_CPP_3_1_1 = Package(
    "@node-llama-cpp/linux-x64", "3.1.1",
    "sha512-s3VsBTrVWJgBfV5HruhfkTrnh5ykbuaCXvm1xRMpmMpnkL2tMMOrJJFJJIvrTurtGTxEvbO45O+wLU4wrVlQOw==",
    "package/bins/linux-x64")
# ONNX Runtime's CPU library ships inside onnxruntime-node; its install script, never run here, only
# downloads the CUDA and TensorRT providers.
ONNXRUNTIME_NODE_1_30_0 = Package(
    "onnxruntime-node", "1.30.0",
    "sha512-twhs1C2C/BFkz1yc5OY0KIU2GUq6DURO7hD4bx5Q2Qy3nAMJwRXW8xU3NVczE29VA9lolLOYepoD8fjTGOfIqw==",
    "package/bin/napi-v6/linux/x64")
ONNXRUNTIME_NODE_1_20_1 = Package(
    "onnxruntime-node", "1.20.1",
    "sha512-di/I4HDXRw+FLgq+TyHmQEDd3cEp9iFFZm0r4uJ1Wd7b/WE1VXtKWo8yemex347c6GNF/3Pv86ZfPhIWxORr0w==",
    "package/bin/napi-v3/linux/x64")


class FetchError(Exception):
    pass


def sri_of(path):
    digest = hashlib.sha512()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return "sha512-" + base64.b64encode(digest.digest()).decode()


def fetch(package, cache, say):
    """The folder of the package's native libraries, unpacked under cache; raises FetchError."""
    cache = pathlib.Path(cache)
    cache.mkdir(parents=True, exist_ok=True)
    tarball = cache / f"{package.stem}.tgz"
    if not tarball.exists() or sri_of(tarball) != package.integrity:
        say(f"fetching {package.url}")
        partial = tarball.with_suffix(".part")
        try:
            with urllib.request.urlopen(package.url, timeout=120) as response, open(partial, "wb") as out:
                for block in iter(lambda: response.read(1 << 20), b""):
                    out.write(block)
        except OSError as e:
            partial.unlink(missing_ok=True)
            raise FetchError(f"{package.url}: {e}") from e
        got = sri_of(partial)
        if got != package.integrity:
            partial.unlink()
            raise FetchError(f"{package.url}: sha512 is {got}, pinned {package.integrity}: refused")
        os.replace(partial, tarball)
    unpacked = cache / package.stem
    marker = unpacked / ".unpacked"
    if not marker.exists() or marker.read_text() != package.integrity:
        unpacked.mkdir(exist_ok=True)
        # GNU tar refuses members outside the folder (absolute names and ..) by default.
        result = subprocess.run(["tar", "xzf", str(tarball), "-C", str(unpacked), "--no-same-owner", package.lib_dir],
                                capture_output=True, text=True)
        if result.returncode != 0:
            raise FetchError(f"{tarball}: tar failed: {result.stderr.strip()}")
        marker.write_text(package.integrity)
    return unpacked / package.lib_dir
