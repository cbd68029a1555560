"""Fetching: cache, checksum verification, user paths, offline fallbacks, errors."""

import hashlib
import io
import tarfile

import pytest

from kit.data.sources import Source, materialize, unpack

# no Keras here: `kit test` runs this module under its first backend only
pytestmark = pytest.mark.one_backend


def _tarball(path, files):
    with tarfile.open(path, "w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


@pytest.fixture
def cache(monkeypatch, tmp_path):
    monkeypatch.setenv("KIT_DATA_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("KIT_OFFLINE", raising=False)
    return tmp_path / "cache"


def test_download_verifies_and_unpacks(cache, tmp_path):
    arc = _tarball(tmp_path / "d.tar.gz", {"d/a.txt": "hello", "d/sub/b.txt": "x", "other.txt": "no"})
    sha = hashlib.sha256(arc.read_bytes()).hexdigest()
    rep = materialize("toy", [Source("url", arc.as_uri(), sha, prefix="d/")], progress=False)
    assert (rep.path / "a.txt").read_text() == "hello" and (rep.path / "sub" / "b.txt").exists()
    assert not (rep.path / "other.txt").exists()
    again = materialize("toy", [Source("url", "file:///nonexistent.tar.gz", sha, prefix="d/")])
    assert again.path == rep.path and "cached" in again.source


def test_checksum_mismatch_is_refused(cache, tmp_path):
    arc = _tarball(tmp_path / "d.tar.gz", {"d/a.txt": "hello"})
    with pytest.raises(ValueError, match="Checksum mismatch"):
        materialize("toy", [Source("url", arc.as_uri(), "0" * 64, prefix="d/")], progress=False)
    assert not list((cache / "downloads").glob("*.tar.gz"))


def test_falls_back_to_next_source(cache, tmp_path):
    arc = _tarball(tmp_path / "d.tar.gz", {"d/a.txt": "hello"})
    sha = hashlib.sha256(arc.read_bytes()).hexdigest()
    rep = materialize(
        "toy",
        [
            Source("url", (tmp_path / "missing.tar.gz").as_uri(), None, prefix="d/"),
            Source("pypi", arc.as_uri(), sha, prefix="d/"),
        ],
        progress=False,
    )
    assert len(rep.tried) == 1 and "missing.tar.gz" in rep.tried[0]


def test_all_sources_fail_lists_them(cache, tmp_path):
    with pytest.raises(FileNotFoundError, match=r"(?s)tried:.*nope1.*nope2.*path=\.\.\."):
        materialize(
            "toy", [Source("url", (tmp_path / "nope1.tgz").as_uri()), Source("npm", (tmp_path / "nope2.tgz").as_uri())]
        )


def test_offline_flag_skips_network(cache, monkeypatch, tmp_path):
    monkeypatch.setenv("KIT_OFFLINE", "1")
    with pytest.raises(FileNotFoundError, match="KIT_OFFLINE=1"):
        materialize("toy", [Source("url", (tmp_path / "x.tgz").as_uri())])


def test_user_path_missing(cache, tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        materialize("toy", [], path=tmp_path / "nowhere")


def test_user_path_folder_and_archive(cache, tmp_path):
    (tmp_path / "mine").mkdir()
    assert materialize("toy", [], path=tmp_path / "mine").path == tmp_path / "mine"
    arc = _tarball(tmp_path / "orig.tar.gz", {"d/a.txt": "hi"})
    rep = materialize("toy", [Source("url", "https://example.invalid/orig.tar.gz", prefix="d/")], path=arc)
    assert (rep.path / "a.txt").read_text() == "hi"


def test_env_var_path(cache, monkeypatch, tmp_path):
    (tmp_path / "mine").mkdir()
    monkeypatch.setenv("KIT_DATA_TOY_SET", str(tmp_path / "mine"))
    assert materialize("toy-set", []).path == tmp_path / "mine"


def test_no_public_source(cache):
    with pytest.raises(FileNotFoundError, match="no public source.*path="):
        materialize("conll2003", [])


def test_unpack_missing_prefix(tmp_path):
    arc = _tarball(tmp_path / "d.tar.gz", {"d/a.txt": "hello"})
    with pytest.raises(FileNotFoundError, match="Nothing under 'zzz/'"):
        unpack(arc, tmp_path / "out", prefix="zzz/")


def test_unverified_source_needs_consent(cache, monkeypatch, tmp_path, capsys):
    """A source without a published checksum is not fetched silently: an online user would get other bytes."""
    arc = _tarball(tmp_path / "d.tar.gz", {"d/a.txt": "hello"})
    monkeypatch.delenv("KIT_ALLOW_UNVERIFIED", raising=False)
    with pytest.raises(FileNotFoundError, match="no published checksum.*KIT_ALLOW_UNVERIFIED=1"):
        materialize("toy", [Source("url", arc.as_uri(), None, prefix="d/")], progress=False)
    monkeypatch.setenv("KIT_ALLOW_UNVERIFIED", "1")
    rep = materialize("toy", [Source("url", arc.as_uri(), None, prefix="d/")], progress=False)
    assert (rep.path / "a.txt").read_text() == "hello"
    assert hashlib.sha256(arc.read_bytes()).hexdigest() in capsys.readouterr().out


def test_every_registry_source_that_may_be_fetched_is_pinned():
    """The offline sets come from checksummed registry artifacts first; no plain http without a checksum."""
    from kit.data.registry import REGISTRY

    for name, spec in REGISTRY.items():
        for src in spec.sources:
            assert src.sha256 or src.kind == "url", f"{name}: registry artifact {src.url} has no checksum"
            assert src.sha256 or src.url.startswith("https://"), f"{name}: unverified plain-http source {src.url}"
        if spec.offline:
            assert spec.sources[0].sha256, f"{name}: the first source tried must be pinned by SHA-256"


def test_single_file_where_a_folder_is_expected(cache, tmp_path, monkeypatch):
    """KIT_DATA_AG_NEWS=train.csv used to be treated as an archive; now it says what ag_news reads."""
    from kit.data import load

    (tmp_path / "train.csv").write_text("".join(f'"{1 + i % 4}","title {i}","text {i}"\n' for i in range(40)))
    monkeypatch.setenv("KIT_DATA_AG_NEWS", str(tmp_path / "train.csv"))
    with pytest.raises(
        ValueError,
        match=r"single \.csv file, but ag_news reads the folder with train\.csv and "
        r"test\.csv.*KIT_DATA_AG_NEWS.*kit\.data\.read",
    ):
        load("ag_news")
    (tmp_path / "test.csv").write_text('"2","t2","x2"\n')
    monkeypatch.setenv("KIT_DATA_AG_NEWS", str(tmp_path))  # the folder works
    ds = load("ag_news")
    assert ds.test.texts == ["t2 x2"] and ds.label_names[ds.test.labels[0]] == "Sports"


def test_the_papers_archives_are_pinned():
    """The papers' own sets come from fixed archives: each is pinned by its published SHA-256 (HuggingFace datasets'
    download_checksums), except AG News, whose fast.ai archive has none published (KIT_ALLOW_UNVERIFIED or your
    copy); CoNLL-2003 has no public source at all."""
    import re

    from kit.data.registry import REGISTRY

    unpinned = {name for name, spec in REGISTRY.items() if not spec.offline for src in spec.sources if not src.sha256}
    assert unpinned == {"ag_news"}
    for name in ("glue_sst2", "glue_qqp", "glue_stsb", "sst5", "imdb", "yelp_full", "yelp_polarity", "yahoo_answers"):
        assert re.fullmatch(r"[0-9a-f]{64}", REGISTRY[name].sources[0].sha256), name


def test_an_archive_put_in_downloads_is_used_offline_after_its_check(cache, monkeypatch, tmp_path):
    """The missing-set error says: put the archive at <cache>/downloads/<file>. Done so, it is verified and unpacked
    without the network; the wrong file is refused with both checksums."""
    arc = _tarball(
        tmp_path / "yelp_review_full_csv.tgz",
        {"yelp_review_full_csv/train.csv": '"5","great"\n', "yelp_review_full_csv/test.csv": '"1","awful"\n'},
    )
    sha = hashlib.sha256(arc.read_bytes()).hexdigest()
    src = Source("url", "https://example.org/yelp_review_full_csv.tgz", sha, prefix="yelp_review_full_csv/")
    monkeypatch.setenv("KIT_OFFLINE", "1")
    with pytest.raises(FileNotFoundError) as err:
        materialize("yelp_full", [src], expects="the folder with train.csv and test.csv")
    text = str(err.value)
    for part in (
        "https://example.org/yelp_review_full_csv.tgz",
        sha,
        str(cache / "downloads" / arc.name),
        "kit data fetch yelp_full",
        "KIT_DATA_YELP_FULL",
        "train.csv and test.csv",
    ):
        assert part in text, part
    (cache / "downloads").mkdir(parents=True)
    wrong = cache / "downloads" / arc.name
    wrong.write_bytes(b"not the archive")
    with pytest.raises(ValueError, match=f"expected sha256 {sha}, got "):
        materialize("yelp_full", [src])
    wrong.write_bytes(arc.read_bytes())
    rep = materialize("yelp_full", [src])
    assert (rep.path / "train.csv").read_text() == '"5","great"\n' and "placed at" in rep.source
