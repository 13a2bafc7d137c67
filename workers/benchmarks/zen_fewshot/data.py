"""Loader for the ZEN release format: <name>/H.pt (2 x nnz incidence), X.pt, Y.pt.

Resolution order for a dataset name: ../shared/data/zen/<name> (development copies), then the
run's data cache, then a download of the three files from the release (URL + SHA-256 each,
verified by workers.core.data.fetch_url). Files are read with torch.load(weights_only=True)
so a downloaded file cannot execute code.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import torch

from workers.core.data import fetch_url, sha256_file, shared_data_dir

# The release at a fixed commit, so the pinned hashes below always describe what is served.
RELEASE_COMMIT = "903f7c973a93649557e46acac5a639df989d8258"
RELEASE_BASE_URL = f"https://raw.githubusercontent.com/chaewoonbae/ZEN/{RELEASE_COMMIT}/data"
# Datasets of the paper's release (README of github.com/chaewoonbae/ZEN).
PAPER_DATASETS = (
    "cora",
    "citeseer",
    "pubmed",
    "coauthor_cora",
    "20newsW100",
    "ModelNet40",
    "congress-bills",
    "walmart-trips",
    "senate-committees",
    "house-committees",
    "zoo",
)
# SHA-256 of the release files at RELEASE_COMMIT (zoo and senate-committees equal our
# ../shared/data/zen copies). The snapshot of the repository we could read lacked the larger
# files' contents (most X.pt, some H.pt), so their SHA-256 is unknown here; every file is
# pinned by its git blob id instead (KNOWN_GIT_BLOB, from the commit's tree: the SHA-1 of
# "blob <size>\0" + content, which `git hash-object` prints), and a user may add a SHA-256 in
# the benchmark config (sha256_H / sha256_X / sha256_Y).
KNOWN_SHA256: dict[str, dict[str, str]] = {
    "house-committees": {
        "H": "43a0a733ba9455b31f8a95197f54f54388b198bf4926da60346c54c7d9a1c040",
        "X": "f04ec8e02e32d939ac8d40a87698263ecb3beb6019ee92696ad47b305af1d919",
        "Y": "ca5884f5ecb9de85f7e93a0294ded7f62f1bbb983496ea7d7110d2bddbb4a18e",
    },
    "congress-bills": {
        "X": "900b813b9c85a6631e651482d905cdfc9d57b1dbd95241128a2fd60b671c966e",
        "Y": "6708b206f263469e0f48006e1cf423f2187b6f20cf7e438ae281117762fa6d15",
    },
    "walmart-trips": {
        "X": "7a6e703fd092e18671a3ca7db93e0d04cb4860a6bd47d8677d17a3af39dc6ffc",
        "Y": "dee6d7acba7a76e4b3f034454776cab4b8ceb46082b1ecf043b382fd57d53e3d",
    },
    "cora": {
        "H": "33b3ea1f3a88129d8b53cf6f171a2032d8d6607b47956a516749693b6e8453d6",
        "Y": "db4fbfdbd7a7494eac171e9565fc1fc6bd798bf92ca569d517204955b6c08974",
    },
    "citeseer": {
        "H": "9dd34be20eedf00122be2480cacb8e36996cd3c8fe66c0798f56833f49ac93f7",
        "Y": "a11aa20cf3af73f62d40190ec551b17f77a7c96e34f9b3bc2853096c2c355f49",
    },
    "pubmed": {
        "H": "4ba67a97f5b96e85dba6b8a6a6048b27a2fc8f668aa2e61fbb72109c2a975b41",
        "Y": "4a5639bdf4cf76d7a295f1b1ca578d9a1e9b29c94712ca654a75e3b1208b0518",
    },
    "coauthor_cora": {
        "H": "d5173638bd7411d84e7dc7555bff91abde3029f8777b7c07a180e93537b5cd4f",
        "Y": "db4fbfdbd7a7494eac171e9565fc1fc6bd798bf92ca569d517204955b6c08974",
    },
    "20newsW100": {
        "H": "f2284cee0015668a5d9c61cb1271cb97b08829fe78497f18d8f146e9a5c4e9a3",
        "Y": "a68f9317fe0552dc0a03256a762ce97c193bc5c8ff672fab09412f48df958555",
    },
    "ModelNet40": {
        "H": "edf61cfa6fa7bc654c52783b9ae3553e6c19d371bf55fcb94186c82d34565a91",
        "Y": "3fe824876d3d3d8bc9c1ee9dc184174068b05af127c18107f9479610b857264a",
    },
    "zoo": {
        "H": "582180767467a0c3ee114e9e09d402de2ec145a7f28971a613ec04113010df28",
        "X": "603a99c017848c6306de14d4314371f8f43b894e17fffea3abed4648244f3d19",
        "Y": "c9e49bfccbff21d639f8a8fc9cedc361f799bd22b9057826f798479d07f0bd42",
    },
    "senate-committees": {
        "H": "54ad0e8c6ec66f5ec96a5fe04b32060de5c8136412a1743d7506e5ce53b5dba7",
        "X": "62383fdac677566688aa819ea9f52827e3246ce982800b15b86b8ec4d7ab914e",
        "Y": "3ef0f12b0ca3bb834ec5f7174f7254b715186b151c58df55b781b61187bd453b",
    },
}

KNOWN_GIT_BLOB: dict[str, dict[str, str]] = {
    "cora": {
        "H": "544b28ea54e26b5411c60233360d4975f4f8efe7",
        "X": "b5d9b8e88785b80e238b9f69cc0beac2798caa3c",
        "Y": "8ddf0bbc547f9eaaa14acf97652cd07efb422282",
    },
    "citeseer": {
        "H": "bea8df7145f81c3e58a2f9f2725e0b1bd504ec7c",
        "X": "b4d85e2c69d756f7fcc2fb69f2a1c54f1132063f",
        "Y": "0ca5824b4142c09995057cd809161b87f900873e",
    },
    "pubmed": {
        "H": "5b90af0cdb23ea8d99f7777359f0abf274942d07",
        "X": "df498a6d81a69c09aa6d8f80107cc31b96111b0a",
        "Y": "5ed23c34599eb013eec0885c0abbf3339c5d0469",
    },
    "coauthor_cora": {
        "H": "605581b22b49b26d5c99c7f498f04fe81aa316fe",
        "X": "b5d9b8e88785b80e238b9f69cc0beac2798caa3c",
        "Y": "8ddf0bbc547f9eaaa14acf97652cd07efb422282",
    },
    "20newsW100": {
        "H": "f65dc8743937902f48d28b90f19c2c9db01abb94",
        "X": "828fe0135ccedeb386088395e40aa3732d103a1c",
        "Y": "3b91b59623bd9ede7707a6c470cfe4389cf7181b",
    },
    "ModelNet40": {
        "H": "2e56922a511087d4b61b5687b0af9ebe3e48188b",
        "X": "793cae736f8016cf223a46f267269409a5693d37",
        "Y": "f4db582bb2f5ea4c85bed0d4fc146ac30ba0e46f",
    },
    "congress-bills": {
        "H": "959421bb01b0383bee68f44b270576bdd0a8c5fe",
        "X": "3ebb484f1e442f7641f132f5f19a20e894e233cd",
        "Y": "da481122d237554c0bc5ca9c011a8313eef41e6a",
    },
    "walmart-trips": {
        "H": "312d59f6ae3e87bd0642ab398812d8e32cb41935",
        "X": "f4944c145af12015ea2e4fd2d5ddddb2a6efb542",
        "Y": "e439d4c4d80ed1f5bb1cbd859c4b713d7895ec48",
    },
    "senate-committees": {
        "H": "f8a18229fc60028cc49950419b8e097dbd36452c",
        "X": "03b32599a104c39a236f6f179523b9c341e126c9",
        "Y": "a662606a1ad3ef0a87a9d529692fbecc1339b329",
    },
    "house-committees": {
        "H": "0734020c30be68b4caa276715fb4a80fa2a20eeb",
        "X": "26f8cde9d1ddf81a63ed33fd609e89ba804228a9",
        "Y": "e3f3a5ce1e3c06539b8173f45378db2b9b7ffe56",
    },
    "zoo": {
        "H": "f81e23ebc87d363cfbf94c76980430f80e327860",
        "X": "735f5ed4654d18f8193144bc550fb7429518a5ef",
        "Y": "342be505e2e60fc6816c49a177a9afd139bbd571",
    },
}


@dataclass
class HypergraphData:
    name: str
    H: torch.Tensor  # (2, nnz) int64: node index, hyperedge index
    X: torch.Tensor  # (n, F) float32
    Y: torch.Tensor  # (n,) int64
    sha256: str  # content hash of the three files
    source: str

    @property
    def n_nodes(self) -> int:
        return self.X.shape[0]


def load_release_dir(path: str | Path, name: str | None = None, source: str = "") -> HypergraphData:
    """Read H.pt, X.pt, Y.pt from `path`, validate them and drop duplicate incidences."""
    path = Path(path)
    missing = [f for f in ("H.pt", "X.pt", "Y.pt") if not (path / f).is_file()]
    if missing:
        raise FileNotFoundError(
            f"{path}: missing {', '.join(missing)} (expected the ZEN release format)"
        )
    H, X, Y = (torch.load(path / f"{f}.pt", weights_only=True) for f in "HXY")
    if not (isinstance(H, torch.Tensor) and H.dim() == 2 and H.shape[0] == 2):
        raise ValueError(
            f"{path}/H.pt: expected a 2 x nnz tensor, got {getattr(H, 'shape', type(H))}"
        )
    X = X.to_dense() if X.is_sparse else X
    if X.dim() != 2 or Y.dim() != 1 or X.shape[0] != Y.shape[0]:
        raise ValueError(
            f"{path}: X {tuple(X.shape)} and Y {tuple(Y.shape)} disagree on the node count"
        )
    H = torch.unique(H.long(), dim=1)  # a repeated (node, edge) pair would double-count RSI terms
    if H.shape[1] and int(H[0].max()) >= X.shape[0]:
        raise ValueError(
            f"{path}/H.pt: node index {int(H[0].max())} >= number of nodes {X.shape[0]}"
        )
    digest = hashlib.sha256(
        "".join(sha256_file(path / f"{f}.pt") for f in "HXY").encode()
    ).hexdigest()
    return HypergraphData(name or path.name, H, X.float(), Y.long(), digest, source or str(path))


def download_release(
    name: str,
    dest: str | Path,
    sha256: dict[str, str],
    base_url: str = RELEASE_BASE_URL,
    git_blob: dict[str, str] | None = None,
) -> Path:
    """Fetch <base_url>/<name>/{H,X,Y}.pt into dest/<name>/, verifying each file against its
    pinned SHA-256, or else its pinned git blob id; a file with neither pin is refused."""
    git_blob = git_blob or {}
    absent = [f for f in "HXY" if not sha256.get(f) and not git_blob.get(f)]
    if absent:
        raise ValueError(
            f"dataset {name!r}: no SHA-256 or git blob id pinned for "
            f"{', '.join(f + '.pt' for f in absent)}; "
            "set sha256_H / sha256_X / sha256_Y after verifying the release files"
        )
    folder = Path(dest) / name
    for f in "HXY":
        url = f"{base_url.rstrip('/')}/{name}/{f}.pt"
        if sha256.get(f):
            fetch_url(url, sha256[f], folder / f"{f}.pt")
        else:
            fetch_url(url, "", folder / f"{f}.pt", git_blob=git_blob[f])
    return folder


def resolve_dataset(
    name: str,
    cache_dir: str | Path,
    sha256: dict[str, str] | None = None,
    base_url: str = RELEASE_BASE_URL,
) -> HypergraphData:
    shared = shared_data_dir()
    if shared is not None and (shared / "zen" / name / "H.pt").is_file():
        return load_release_dir(shared / "zen" / name, name, source=f"shared/data/zen/{name}")
    pins = {**KNOWN_SHA256.get(name, {}), **{k: v for k, v in (sha256 or {}).items() if v}}
    folder = download_release(name, cache_dir, pins, base_url, KNOWN_GIT_BLOB.get(name))
    return load_release_dir(folder, name, source=f"{base_url.rstrip('/')}/{name}")
