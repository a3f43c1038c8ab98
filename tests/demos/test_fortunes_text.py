"""Tests for demos/asr-synth/fortunes_text.py (sentence cleaning, transcription, split)."""

import os

import pytest

from tests.demos._demo_modules import ASR_DIR, FORTUNES_DIR, have_fortunes, load_module

ft = load_module(os.path.join(ASR_DIR, "fortunes_text.py"), "fortunes_text")


def test_record_to_sentences_drops_attribution():
    record = "The less of either the people have,\n  the less they want.  Really!\n\t\t-- Somebody Famous\nmore"
    assert ft.record_to_sentences(record) == ["The less of either the people have, the less they want.", "Really!"]


def test_clean_sentence_filters():
    assert ft.clean_sentence("Things are not always what they seem.") == "Things are not always what they seem."
    assert ft.clean_sentence("Too short.") is None  # 2 words
    assert ft.clean_sentence(" ".join(["word"] * 21)) is None
    assert ft.clean_sentence("Send mail to me@example.com now please.") is None  # '@' not allowed
    assert ft.clean_sentence("After your lover has gone you will still have PEANUT BUTTER!") is None  # all-caps
    assert ft.clean_sentence("Caf\u00e9 is open all night long.") is None  # non-ASCII


def test_transcription():
    assert ft.transcription('"Don\'t panic," said the well-known guide.') == "don't panic said the well known guide"
    assert ft.transcription("'Quoted' words -- and  spaces!") == "quoted words and spaces"
    assert set(ft.transcription("It's A-OK; (really)?")) <= set(ft.VOCAB)
    assert ft.VOCAB[:3] == [" ", "'", "a"] and len(ft.VOCAB) == 28


def test_split_is_deterministic_hash():
    # exact values of SHA-1 based buckets (independent: recomputed with hashlib here)
    import hashlib

    for text in ["hello there world", "the way to make a small fortune", "abc"]:
        bucket = int(hashlib.sha1(text.encode()).hexdigest()[:16], 16) % 100
        expected = "train" if bucket < 90 else "dev" if bucket < 95 else "test"
        assert ft.split_of(text) == expected


def test_written_chars_match_filter():
    assert len(ft.WRITTEN_CHARS) == 74 and ft.WRITTEN_CHARS[0] == " "
    for c in ft.WRITTEN_CHARS:
        assert ft.clean_sentence(f"one two thr{c}ee") is not None, repr(c)


def test_missing_fortunes_names_package(tmp_path):
    with pytest.raises(ft.FortunesMissingError, match="apt-get install fortunes"):
        ft.list_fortune_files(str(tmp_path))


@pytest.mark.skipif(not have_fortunes(), reason="Debian package 'fortunes' not installed (apt-get install fortunes)")
def test_corpus_properties():
    corpus = ft.load_corpus(FORTUNES_DIR)
    all_sents = corpus["train"] + corpus["dev"] + corpus["test"]
    assert len(corpus["train"]) > 5000 and len(corpus["dev"]) > 200 and len(corpus["test"]) > 200
    assert len(set(all_sents)) == len(all_sents)  # deduplicated across splits
    for name, sents in corpus.items():
        assert sents == sorted(sents, key=ft.sentence_hash)
        for s in sents[:300]:
            assert ft.split_of(s) == name
            assert 3 <= len(s.split()) <= 20 and set(s) <= set(ft.VOCAB)
