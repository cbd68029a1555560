"""Amazon reviews (the paper's Sports and Electronics): the 2014, 2018 and 2023 releases' JSON lines, gzipped or not,
messy lines included; clear errors for what is not a review file."""

import gzip
import json

import numpy as np
import pytest

from kit.data import load
from kit.data.parsers import parse_amazon_reviews

pytestmark = pytest.mark.one_backend  # no Keras: data parsing

REVIEW_2018 = {
    "overall": 5.0,
    "verified": True,
    "reviewTime": "06 3, 2015",
    "reviewerID": "A1",
    "asin": "B0",
    "style": {"Size:": " Large"},
    "reviewerName": "Ann",
    "reviewText": 'Great "grip",\nfits well.',
    "summary": "Five Stars",
    "unixReviewTime": 1433289600,
}


def _write(path, lines, gz=False):
    text = "".join(line + "\n" for line in lines)
    if gz:
        with gzip.open(path, "wt", encoding="utf-8") as f:
            f.write(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_the_three_releases_and_messy_lines(tmp_path):
    lines = [
        json.dumps(REVIEW_2018),
        json.dumps({**REVIEW_2018, "overall": 1.0, "reviewText": "Broke after a week \u2014 na\u00efve me."}),
        json.dumps({**REVIEW_2018, "overall": 3.0, "reviewText": ""}),  # a rating without text
        json.dumps({k: v for k, v in REVIEW_2018.items() if k != "reviewText"} | {"overall": 2.0}),
        "",  # a blank line
        str({"overall": 4.0, "reviewText": "2014's Python-literal line", "helpful": [0, 0]}),
        json.dumps({"rating": 2.0, "title": "Meh", "text": "The 2023 release's fields\ttab", "asin": "B1"}),
    ]
    texts, stars, no_text = parse_amazon_reviews(_write(tmp_path / "Sports_and_Outdoors_5.json.gz", lines, gz=True))
    assert texts[0] == 'Great "grip", fits well.' and texts[1].endswith("na\u00efve me.")
    assert stars.tolist() == [4, 0, 3, 1] and no_text == 2
    assert texts[3] == "The 2023 release's fields tab"


@pytest.mark.parametrize(
    "line, message",
    [
        ('{"overall": 6.0, "reviewText": "x"}', "line 2: rating 6.0 is not a whole star 1-5"),
        ('{"overall": "five", "reviewText": "x"}', "line 2: rating 'five' is not a number"),
        ('{"reviewText": "x"}', "line 2: no rating"),
        ("overall,reviewText", "line 2: not a JSON review"),
        ("[1, 2]", "line 2: expected a JSON object"),
    ],
)
def test_what_is_not_a_review_stops_with_its_line(tmp_path, line, message):
    with pytest.raises(ValueError, match=message):
        parse_amazon_reviews(_write(tmp_path / "x.json", [json.dumps(REVIEW_2018), line]))


def test_load_a_category_from_your_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("KIT_DATA_DIR", str(tmp_path / "cache"))
    rng = np.random.default_rng(0)
    lines = [
        json.dumps({**REVIEW_2018, "overall": float(s), "reviewText": f"review {i} with {s} stars"})
        for i, s in enumerate(rng.integers(1, 6, 200))
    ]
    folder = tmp_path / "amazon"
    folder.mkdir()
    _write(folder / "Sports_and_Outdoors_5.json.gz", lines, gz=True)
    _write(folder / "Electronics_5.json", lines[:50])
    sports = load("amazon_sports", path=folder)
    assert sports.num_classes == 5 and sum(sports.sizes().values()) == 200
    assert sports.sizes()["test"] == 20 and "Sports_and_Outdoors_5.json.gz" in sports.description
    binary = load("amazon_sports", path=folder, target="binary")
    assert binary.label_names == ["negative", "positive"] and sum(binary.sizes().values()) < 200
    assert sum(load("amazon_electronics", path=folder).sizes().values()) == 50


def test_no_copy_says_which_file_to_put_where(tmp_path, monkeypatch):
    monkeypatch.setenv("KIT_DATA_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("KIT_DATA_AMAZON_SPORTS", raising=False)
    with pytest.raises(FileNotFoundError, match=r"KIT_DATA_AMAZON_SPORTS.*Sports_and_Outdoors_5\.json\.gz"):
        load("amazon_sports")
    other = tmp_path / "only_electronics"
    other.mkdir()
    _write(other / "Electronics_5.json", [json.dumps(REVIEW_2018)])
    with pytest.raises(FileNotFoundError, match="expected one review file of Sports.*found none"):
        load("amazon_sports", path=other)  # another category's reviews are never read as this one
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="expected one review file of Sports.*found none"):
        load("amazon_sports", path=tmp_path / "empty")
