"""CoNLL-U (Universal Dependencies) into notebook 03's tagging task: UD's own examples, broken lines, a real treebank.

The sentences below are the examples of UD's format documentation (https://universaldependencies.org/format.html and
u/overview/enhanced-syntax.html), written out in all ten fields: Spanish "vámonos al mar" (multiword tokens 1-2 and
3-4), "nosotros vamos al mar y vosotros al parque" (an empty node 7.1 before the range 8-9), German "fürs" with a
``# text_en`` comment, Swedish with its XPOS, and the enhanced-dependencies ellipsis "Mary wants to buy a book and
Jenny a CD" (empty nodes 8.1 and 8.2).
"""

import codecs

import pytest

from kit.data import ConllFormat, ConlluFormat, Splits, data_kind, read
from kit.data.conll import is_conllu_file, is_tagged_file
from kit.data.conllu import UD_UPOS, field_number, turkish_web_treebank

# no Keras here: `kit test` runs this module under its first backend only
pytestmark = pytest.mark.one_backend


def _lines(*rows):
    """A sentence: comment lines as they are, word rows (space-separated here for legibility) joined by tabs."""
    return "".join((r if r.startswith("#") else "\t".join(r.split())) + "\n" for r in rows) + "\n"


VAMONOS = _lines(
    "# sent_id = es-1",
    "# text = Vámonos al mar.",
    "1-2 Vámonos _ _ _ _ _ _ _ _",
    "1 Vamos ir VERB _ Mood=Imp|Number=Plur|Person=1|VerbForm=Fin 0 root _ _",
    "2 nos nosotros PRON _ Case=Acc|Number=Plur|Person=1|PronType=Prs 1 obj _ _",
    "3-4 al _ _ _ _ _ _ _ _",
    "3 a a ADP _ _ 5 case _ _",
    "4 el el DET _ Definite=Def|Gender=Masc|Number=Sing|PronType=Art 5 det _ _",
    "5 mar mar NOUN _ Number=Sing 1 obl _ SpaceAfter=No",
    "6 . . PUNCT _ _ 1 punct _ _",
)
VOSOTROS = _lines(
    "# text = Nosotros vamos al mar y vosotros al parque.",
    "1 Nosotros nosotros PRON _ _ 2 nsubj 2:nsubj _",
    "2 vamos ir VERB _ _ 0 root 0:root _",
    "3-4 al _ _ _ _ _ _ _ _",
    "3 a a ADP _ _ 5 case 5:case _",
    "4 el el DET _ _ 5 det 5:det _",
    "5 mar mar NOUN _ _ 2 obl 2:obl:a _",
    "6 y y CCONJ _ _ 7 cc 7.1:cc _",
    "7 vosotros vosotros PRON _ _ 2 conj 7.1:nsubj _",
    "7.1 vais ir VERB _ _ _ _ 2:conj:y _",
    "8-9 al _ _ _ _ _ _ _ _",
    "8 a a ADP _ _ 10 case 10:case _",
    "9 el el DET _ _ 10 det 10:det _",
    "10 parque parque NOUN _ _ 7 orphan 7.1:obl:a SpaceAfter=No",
    "11 . . PUNCT _ _ 2 punct 2:punct _",
)
FURS = _lines(
    "# sent_id = de-1",
    "# text_en = He works for the FBI.",  # not the sentence's text
    "# text = Er arbeitet fürs FBI.",
    "1 Er er PRON PPER Case=Nom|Gender=Masc|Number=Sing|Person=3|PronType=Prs 2 nsubj _ _",
    "2 arbeitet arbeiten VERB VVFIN Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 0 root _ _",
    "3-4 fürs _ _ _ _ _ _ _ _",
    "3 für für ADP APPR _ 5 case _ _",
    "4 das der DET ART Case=Acc|Definite=Def|Gender=Neut|Number=Sing|PronType=Art 5 det _ _",
    "5 FBI FBI PROPN NE Case=Acc|Gender=Neut|Number=Sing 2 obl _ SpaceAfter=No",
    "6 . . PUNCT $. _ 2 punct _ _",
)
SWEDISH = _lines(  # no `# text`: its text is None
    "# sent_id = sv-1",
    "1 Då då ADV AB _ 2 advmod _ _",
    "2 var vara VERB VB.PRET.ACT Tense=Past|Voice=Act 0 root _ _",
    "3 han han PRON PN.UTR.SIN.DEF.NOM Case=Nom|Definite=Def|Gender=Com|Number=Sing 2 nsubj _ _",
    "4 elva elva NUM RG.NOM Case=Nom|NumType=Card 5 nummod _ _",
    "5 år år NOUN NN.NEU.PLU.IND.NOM Case=Nom|Definite=Ind|Gender=Neut|Number=Plur 2 obl _ SpaceAfter=No",
    "6 . . PUNCT DL.MAD _ 2 punct _ _",
)
ELLIPSIS = _lines(
    "# text = Mary wants to buy a book and Jenny a CD.",
    "1 Mary Mary PROPN NNP Number=Sing 2 nsubj 2:nsubj|4:nsubj _",
    "2 wants want VERB VBZ Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 0 root 0:root _",
    "3 to to PART TO _ 4 mark 4:mark _",
    "4 buy buy VERB VB VerbForm=Inf 2 xcomp 2:xcomp _",
    "5 a a DET DT Definite=Ind|PronType=Art 6 det 6:det _",
    "6 book book NOUN NN Number=Sing 4 obj 4:obj _",
    "7 and and CCONJ CC _ 8 cc 8.1:cc _",
    "8 Jenny Jenny PROPN NNP Number=Sing 2 conj 8.1:nsubj|8.2:nsubj _",
    "8.1 wants want VERB VBZ _ _ _ 2:conj:and _",
    "8.2 buy buy VERB VB _ _ _ 8.1:xcomp _",
    "9 a a DET DT Definite=Ind|PronType=Art 10 det 10:det _",
    "10 CD CD NOUN NN Number=Sing 8 orphan 8.2:obj SpaceAfter=No",
    "11 . . PUNCT . _ 2 punct 2:punct _",
)
SPANISH = VAMONOS + VOSOTROS  # XPOS unspecified throughout, as in many treebanks
TAGGED = FURS + SWEDISH + ELLIPSIS  # every word has UPOS and XPOS
WORDS = {  # each sentence's words (multiword tokens and empty nodes skipped), its UPOS and its `# text`
    "Vamos": (["Vamos", "nos", "a", "el", "mar", "."], "VERB PRON ADP DET NOUN PUNCT", "Vámonos al mar."),
    "Nosotros": (
        ["Nosotros", "vamos", "a", "el", "mar", "y", "vosotros", "a", "el", "parque", "."],
        "PRON VERB ADP DET NOUN CCONJ PRON ADP DET NOUN PUNCT",
        "Nosotros vamos al mar y vosotros al parque.",
    ),
    "Er": (["Er", "arbeitet", "für", "das", "FBI", "."], "PRON VERB ADP DET PROPN PUNCT", "Er arbeitet fürs FBI."),
    "Då": (["Då", "var", "han", "elva", "år", "."], "ADV VERB PRON NUM NOUN PUNCT", None),
    "Mary": (
        ["Mary", "wants", "to", "buy", "a", "book", "and", "Jenny", "a", "CD", "."],
        "PROPN VERB PART VERB DET NOUN CCONJ PROPN DET NOUN PUNCT",
        "Mary wants to buy a book and Jenny a CD.",
    ),
}


def _write(path, text, encoding="utf-8"):
    path.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return path


def _sentences(ds):
    """Every sentence as (words, UPOS, text), over all splits."""
    return [
        (words, " ".join(ds.label_names[t] for t in tags), text)
        for k, split in ds.splits.items()
        for words, tags, text in zip(split.texts, split.labels, ds.info["sentence_text"][k])
    ]


def test_ud_examples_give_the_words_their_upos_and_text(tmp_path, capsys):
    ds = read(_write(tmp_path / "ud.conllu", (SPANISH + TAGGED) * 4))
    assert ds.task == "tagging" and ds.sizes() == {"train": 16, "dev": 2, "test": 2}
    assert set(ds.label_names) <= set(UD_UPOS) and ds.label_names == sorted(ds.label_names)
    got = _sentences(ds)
    assert len(got) == 20 and sorted(got, key=str) == sorted([WORDS[w[0]] for w, _, _ in got], key=str)
    assert sorted({w[0] for w, _, _ in got}) == sorted(WORDS)  # each sentence is there, with its own words
    assert ds.info["multiword_tokens"] == 4 * 5 and ds.info["empty_nodes"] == 4 * 3  # ranges and empty nodes skipped
    assert (ds.info["tag_field"], ds.info["tag_field_number"]) == ("UPOS", 4)
    out = capsys.readouterr().out
    assert "ud.conllu: 20 sentences, 11 UPOS tags (field 4), task 'tagging'; train 16, dev 2, test 2" in out
    assert "skipped 20 multiword-token lines, 12 empty nodes" in out


@pytest.mark.parametrize("field", ["xpos", "XPOS", 5, "5"])
def test_xpos_by_name_or_by_its_number(tmp_path, field):
    ds = read(_write(tmp_path / "x.conllu", TAGGED * 4), fmt=ConlluFormat(tag_field=field), verbose=False)
    assert ds.label_names == sorted(
        "PPER VVFIN APPR ART NE $. AB VB.PRET.ACT PN.UTR.SIN.DEF.NOM RG.NOM NN.NEU.PLU.IND.NOM DL.MAD NNP VBZ TO VB "
        "DT NN CC .".split()
    )
    assert (ds.info["tag_field"], ds.info["tag_field_number"]) == ("XPOS", 5)
    mary = next(
        (w, t) for s in ds.splits.values() for w, t in zip(s.texts, s.labels) if w[0] == "Mary"
    )  # the empty nodes' VBZ/VB do not shift the words' tags
    assert [ds.label_names[i] for i in mary[1]] == "NNP VBZ TO VB DT NN CC NNP DT NN .".split()


def test_other_fields_and_the_numbering(tmp_path):
    path = _write(tmp_path / "x.conllu", TAGGED * 4)
    assert "root" in read(path, fmt=ConlluFormat(tag_field="deprel"), verbose=False).label_names
    assert (
        read(path, fmt=ConlluFormat(tag_field=8), verbose=False).label_names
        == read(path, fmt=ConlluFormat(tag_field="DepRel"), verbose=False).label_names
    )
    feats = read(path, fmt=ConlluFormat("feats"), verbose=False).label_names  # FEATS: _ is the empty list, a value
    assert "_" in feats and "Tense=Past|Voice=Act" in feats
    assert [field_number(f) for f in ("lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc")] == list(
        range(3, 11)
    )


def test_the_same_from_a_bom_crlf_utf16_and_trailing_blanks(tmp_path):
    clean = read(_write(tmp_path / "clean.conllu", TAGGED * 4), verbose=False)
    for i, raw in enumerate(
        [
            codecs.BOM_UTF8 + (TAGGED * 4).encode(),
            (TAGGED * 4).replace("\n", "\r\n").encode(),
            codecs.BOM_UTF8 + (TAGGED * 4).replace("\n", "\r\n").encode(),
            (TAGGED * 4).encode("utf-16"),
            (TAGGED * 4 + "\n\n  \n").encode(),
            (TAGGED * 4).rstrip("\n").encode(),  # no blank line (nor line feed) at the end of the file
        ]
    ):
        ds = read(_write(tmp_path / f"messy{i}.conllu", raw), verbose=False)
        assert ds.label_names == clean.label_names and ds.sizes() == clean.sizes(), i
        assert _sentences(ds) == _sentences(clean), i
    with pytest.raises(ValueError, match=r"latin1.conllu, line 2: byte b'\\xe9' is not valid utf-8"):
        read(_write(tmp_path / "latin1.conllu", "# x\n# text = caf\xe9\n", "latin-1"), verbose=False)


# --- broken files: each stops at its line, says what is wrong and the fix ---------------------------------------

GOOD = SWEDISH * 3  # 24 lines: sentence 2 is lines 9 (its comment) to 16 (the blank line), its word 2 line 11


def _broken(line, at=11, drop=0):
    """GOOD with line ``at`` replaced by ``line`` (and the ``drop`` lines after it removed)."""
    rows = GOOD.split("\n")
    rows[at - 1 : at + drop] = [line]
    return "\n".join(rows)


VAR = "2\tvar\tvara\tVERB\tVB.PRET.ACT\t_\t0\troot\t_\t_"  # line 11 as it is
BROKEN = {  # what breaks: (the file, the line it stops at, what the message says)
    "nine fields": (_broken(VAR[: VAR.rindex("\t")]), 11, r"got 9: .*a field is missing"),
    "eleven fields": (_broken(VAR + "\t"), 11, r"got 11: .*a field too many"),
    "spaces": (_broken(VAR.replace("\t", " ")), 11, r"got 1: .*looks separated by spaces: CoNLL-U needs a tab"),
    "some spaces": (_broken(VAR.replace("\t", " ", 2)), 11, r"got 8: .*some of its fields are separated by spaces"),
    "ID a word": (_broken("two" + VAR[1:]), 11, r"ID 'two' is not a word's number"),
    "ID 2a": (_broken("2a" + VAR[1:]), 11, r"ID '2a' is not a word's number .*range \(1-2\).*\(8.1\)"),
    "ID 2.": (_broken("2." + VAR[1:]), 11, r"ID '2.' is not a word's number"),
    "ID skips": (_broken("3" + VAR[1:]), 11, r"word ID 3 after 1, where 2 comes next: IDs count up by 1"),
    "ID from 2": (_broken("2\tDå\tdå\tADV\tAB\t_\t2\tadvmod\t_\t_", at=10), 10, r"numbered 1, 2, 3"),
    "no blank line": (_broken("# sent_id = sv-2b", at=8), 8, r"a comment inside a sentence.*put a blank line before"),
    "no blank line, no comment": (
        _broken("1\tDå\tdå\tADV\tAB\t_\t2\tadvmod\t_\t_", at=8, drop=2),
        8,
        r"word ID 1 after 6, where 7 comes next.*If a new sentence starts here, put a blank line before it",
    ),
    "empty node misplaced": (_broken("5.1" + VAR[1:]), 11, r"empty node 5.1 after word 1: .*here it is 1.1"),
    "empty node .0": (_broken("1.0" + VAR[1:]), 11, r"empty node 1.0 after word 1"),
    "range misplaced": (_broken("3-4\tvar" + "\t_" * 8), 11, r"multiword token 3-4 after word 1"),
    "range of one": (_broken("2-2\tvar" + "\t_" * 8), 11, r"multiword token 2-2 after word 1"),
    "range past the words": (
        _broken("6-7\t." + "\t_" * 8, at=15),
        15,
        r"a multiword token's range ends at 7, but the sentence's last word is 5",
    ),
    "empty tag field": (_broken(VAR.replace("VERB", "")), 11, r"field 4 \(UPOS\) is empty. CoNLL-U writes _"),
    "empty form": (_broken(VAR.replace("var", "", 1)), 11, r"field 2 \(FORM\) is empty"),
    "one UPOS unspecified": (
        _broken(VAR.replace("VERB", "_")),
        11,
        r"the UPOS \(4\) tag is _ \(unspecified\), but other words have one \(4 of 72 words",
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_line_stops_with_its_line_and_fix(tmp_path, case):
    text, line, match = BROKEN[case]
    assert read(_write(tmp_path / "ok.conllu", GOOD * 4), verbose=False).sizes()["train"] == 10  # it read
    with pytest.raises(ValueError, match=rf"^bad.conllu, line {line}: .*{match}") as err:
        read(_write(tmp_path / "bad.conllu", text * 4), verbose=False)
    if "field" in case or "spaces" in case:  # the fields, by name and number
        assert "ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC" in str(err.value) or "1 ID, 2 FORM" in str(
            err.value
        )


def test_a_field_empty_in_the_file_names_the_fields_that_have_values(tmp_path):
    path = _write(tmp_path / "es.conllu", SPANISH * 5)
    assert read(path, verbose=False).sizes() == {"train": 8, "dev": 1, "test": 1}  # UPOS reads
    with pytest.raises(ValueError, match=r"es.conllu: the XPOS \(5\) field is empty in this file") as err:
        read(path, fmt=ConlluFormat(tag_field="xpos"), verbose=False)
    msg = str(err.value)
    assert "lemma (3), upos (4), feats (6), head (7), deprel (8), deps (9), misc (10)" in msg
    assert "xpos (5)," not in msg and "1 ID, 2 FORM, 3 LEMMA, 4 UPOS, 5 XPOS" in msg


@pytest.mark.parametrize(
    "field, match",
    [
        ("pos", r"unknown CoNLL-U field 'pos': name one of lemma, upos, xpos, feats, head, deprel, deps, misc"),
        ("", r"unknown CoNLL-U field ''"),
        (0, r"field number 0 is outside 1-10: CoNLL-U numbers its fields 1-10: 1 ID, 2 FORM"),
        (11, r"field number 11 is outside 1-10"),
        (-1, r"field number -1 is outside 1-10.*no -1 for the last"),
        ("-1", r"field number '-1' is outside 1-10"),
        ("form", r"field 2 \(FORM\) is the word itself, not a tag: choose .* upos \(4\) or xpos \(5\)"),
        (2, r"field 2 \(FORM\) is the word itself"),
        ("id", r"field 1 \(ID\) is the word itself"),
    ],
)
def test_a_wrong_field_names_the_fields_and_their_numbers(tmp_path, field, match):
    path = _write(tmp_path / "x.conllu", TAGGED * 4)
    with pytest.raises(ValueError, match=rf"^x.conllu: {match}") as err:
        read(path, fmt=ConlluFormat(tag_field=field), verbose=False)
    assert "1 ID, 2 FORM, 3 LEMMA, 4 UPOS, 5 XPOS, 6 FEATS, 7 HEAD, 8 DEPREL, 9 DEPS, 10 MISC" in str(err.value)


def test_one_tag_only_and_no_sentences(tmp_path):
    one = "".join(f"# text = w{i}\n1\tw{i}\tw\tNOUN\tNN\t_\t0\troot\t_\t_\n\n" for i in range(20))
    with pytest.raises(ValueError, match=r"one.conllu: every word has the UPOS \(4\) tag 'NOUN'; .*two tags"):
        read(_write(tmp_path / "one.conllu", one), verbose=False)
    for i, text in enumerate(["", "\n\n", "# newdoc id = x\n# sent_id = 1\n# text = nothing here\n\n"]):
        with pytest.raises(ValueError, match=rf"none{i}.conllu holds no sentences. CoNLL-U has a word per line"):
            read(_write(tmp_path / f"none{i}.conllu", text), verbose=False)
    with pytest.raises(FileNotFoundError, match="No such file or folder"):
        read(tmp_path / "missing.conllu")


# --- folders: a treebank's split files ----------------------------------------------------------------------------


@pytest.mark.parametrize("names", ["ud", "plain"])
def test_a_treebank_folder_keeps_its_splits(tmp_path, names):
    sizes = {"train": 5, "dev": 2, "test": 3}
    for split, n in sizes.items():
        name = f"sv_talbanken-ud-{split}.conllu" if names == "ud" else f"{split}.conllu"
        _write(tmp_path / name, SWEDISH.replace("sv-1", f"{split}") * n + ELLIPSIS)
    (tmp_path / "sv_talbanken-ud-train.txt").write_text("the raw text UD ships beside the .conllu files")
    ds = read(tmp_path, verbose=False)
    assert ds.sizes() == {k: n + 1 for k, n in sizes.items()}
    assert ds.info["split"] == "the folder's train, dev and test files" and ds.name == tmp_path.name
    assert ds.info["sentence_text"]["dev"] == [None, None, WORDS["Mary"][2]]  # the file's order, its texts
    assert is_conllu_file(tmp_path) and not is_conllu_file(tmp_path / "sv_talbanken-ud-train.txt")


def test_a_folder_with_train_and_test_only_splits_dev_off_train(tmp_path, capsys):
    _write(tmp_path / "tr_x-ud-train.conllu", TAGGED * 10)
    _write(tmp_path / "tr_x-ud-test.conllu", TAGGED * 2)
    ds = read(tmp_path, splits=Splits(dev=0.1, seed=0))
    assert ds.sizes() == {"train": 27, "dev": 3, "test": 6}
    assert ds.info["split"] == "the folder's files; dev split off train (seeded)"
    assert "dev split off train (seeded)" in capsys.readouterr().out
    again = read(tmp_path, splits=Splits(dev=0.1, seed=0), verbose=False)
    assert _sentences(again) == _sentences(ds)  # seeded
    assert _sentences(read(tmp_path, splits=Splits(seed=1), verbose=False)) != _sentences(ds)


def test_folders_the_kit_cannot_read_say_why(tmp_path):
    one = tmp_path / "one"
    one.mkdir()
    _write(one / "web.conllu", TAGGED * 4)  # one file, of any name: split like a file
    assert read(one, verbose=False).sizes() == {"train": 10, "dev": 1, "test": 1}
    _write(one / "wiki.conllu", TAGGED * 4)
    with pytest.raises(FileNotFoundError, match=r"none is named for a split: \['web.conllu', 'wiki.conllu'\]"):
        read(one, verbose=False)
    two = tmp_path / "two"
    two.mkdir()
    for name in ("en_ewt-ud-train.conllu", "en_gum-ud-train.conllu", "en_ewt-ud-test.conllu"):
        _write(two / name, TAGGED * 4)
    with pytest.raises(ValueError, match=r"has 2 .conllu files for train.*one treebank per folder"):
        read(two, verbose=False)
    test_only = tmp_path / "test_only"
    test_only.mkdir()
    _write(test_only / "en_ewt-ud-test.conllu", TAGGED * 4)
    with pytest.raises(FileNotFoundError, match=r"has no train file"):
        read(test_only, verbose=False)
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match=r"empty is a folder with no .conllu file"):
        read(tmp_path / "empty", fmt=ConlluFormat(), verbose=False)  # the format says what the folder should hold


# --- sniffing, and what the CoNLL reader says of a CoNLL-U file ----------------------------------------------------


def test_conllu_by_its_content_and_a_conll_format_for_it(tmp_path):
    path = _write(tmp_path / "treebank.txt", TAGGED * 4)  # CoNLL-U under another name: read as CoNLL-U
    assert data_kind(path) == "conllu" and read(path, verbose=False).info["tag_field"] == "UPOS"
    with pytest.raises(ValueError, match=r"ConllFormat does not apply to treebank.txt: it is CoNLL-U \(by its content"):
        read(path, fmt=ConllFormat(), verbose=False)
    bare = "".join(r + "\n" for r in (TAGGED * 4).split("\n") if not r.startswith("#"))  # no comments either
    assert data_kind(_write(tmp_path / "bare.conll", bare)) == "conllu"  # not its IDs read as the tokens
    folder = tmp_path / "ud"
    folder.mkdir()
    _write(folder / "en_ewt-ud-train.conllu", TAGGED * 4)
    with pytest.raises(ValueError, match=r"ConllFormat does not apply to ud: it is CoNLL-U \(by its name\)"):
        read(folder, fmt=ConllFormat(), verbose=False)
    conll2003 = tmp_path / "conll2003"  # CoNLL-2003's file names, CoNLL-U inside
    conll2003.mkdir()
    for name in ("train.txt", "valid.txt", "test.txt"):
        _write(conll2003 / name, TAGGED * 4)
    with pytest.raises(ValueError, match=r"train.txt: this is a CoNLL-U file: name it .conllu"):
        read(conll2003, task="tagging", verbose=False)


def test_conllu_is_tagging_for_kit_run_and_known_by_name(tmp_path):
    assert is_tagged_file("en_ewt-ud-train.conllu") and is_conllu_file("en_ewt-ud-train.conllu")
    assert is_conllu_file("X.CONLLU") and not is_conllu_file("ner.conll") and not is_conllu_file(tmp_path)


# --- a real treebank: Google's Turkish Web Treebank, from its PyPI wheel ---------------------------------------------


def test_the_turkish_web_treebank(web_conllu):
    assert web_conllu.name == "web.conllu"
    ds = read(web_conllu, verbose=False)
    assert sum(ds.sizes().values()) == 2541  # its sentences (and `# text` comments, and sent_ids): 2,541
    assert ds.sizes() == {"train": 2033, "dev": 254, "test": 254}
    # the treebank's UPOS: 14 tags, UD v1's CONJ and PRT and its own AFFIX and ONOM among them
    assert ds.label_names == [
        "ADJ", "ADP", "ADV", "AFFIX", "CONJ", "DET", "NOUN", "NUM", "ONOM", "PRON", "PRT", "PUNCT", "VERB", "X"
    ]  # fmt: skip
    assert len(ds.label_names) <= len(UD_UPOS) == 17
    assert sum(len(t) for s in ds.splits.values() for t in s.texts) == 32422  # its words
    texts = [t for part in ds.info["sentence_text"].values() for t in part]
    assert None not in texts and "Burda da öylemi yoksa kiloyla mı ?" in texts
    xpos = read(web_conllu, fmt=ConlluFormat(tag_field="xpos"), verbose=False)
    assert len(xpos.label_names) == 44 and {"NN", "NNP", "VB", "JJ"} <= set(xpos.label_names)
    assert xpos.info["sentence_text"] == ds.info["sentence_text"]  # the same seeded split of the same sentences
    with pytest.raises(ValueError, match=r"web.conllu, line 14: the LEMMA \(3\) tag is _"):  # its suffix pieces
        read(web_conllu, fmt=ConlluFormat(tag_field="lemma"), verbose=False)
    with pytest.raises(ValueError, match=r"DEPS \(9\) field is empty in this file"):
        read(web_conllu, fmt=ConlluFormat(tag_field="deps"), verbose=False)


def test_your_copy_of_the_treebank_must_hold_web_conllu(tmp_path, monkeypatch):
    monkeypatch.setenv("KIT_DATA_TURKISH_WEB_TREEBANK", str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"has no web.conllu"):
        turkish_web_treebank()
    _write(tmp_path / "web.conllu", TAGGED * 4)
    assert turkish_web_treebank() == tmp_path / "web.conllu"


def test_offline_and_not_cached_says_how_to_get_the_treebank(tmp_path, monkeypatch):
    monkeypatch.setenv("KIT_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("KIT_OFFLINE", "1")
    monkeypatch.delenv("KIT_DATA_TURKISH_WEB_TREEBANK", raising=False)
    with pytest.raises(FileNotFoundError, match=r"skipped \(KIT_OFFLINE=1\)") as err:
        turkish_web_treebank()
    msg = str(err.value)
    assert "set KIT_DATA_TURKISH_WEB_TREEBANK to that wheel" in msg and "5a009c29a8e96e8f7e25059d" in msg
    assert "kit data fetch" not in msg  # the registry does not know this file
