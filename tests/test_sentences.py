from metaeval.data.sentences import split_sentences


def test_tokenised_lowercase_text():
    text = "paul merson has restarted his row . townsend was brought on in the 83rd minute ! who knows ?"
    assert split_sentences(text) == ["paul merson has restarted his row .", "townsend was brought on in the 83rd minute !",
                                     "who knows ?"]


def test_running_text_with_abbreviations_and_initials():
    text = 'Mr. Smith met Dr. J. Doe in the U.S. on Monday. "It went well." He left at 5 p.m. today. Then rain.'
    assert split_sentences(text) == ['Mr. Smith met Dr. J. Doe in the U.S. on Monday.', '"It went well."',
                                     "He left at 5 p.m. today.", "Then rain."]


def test_lowercase_continuation_and_whitespace():
    assert split_sentences("It cost approx. five dollars.\n\nNext  one.") == ["It cost approx. five dollars.", "Next one."]
    assert split_sentences("") == [] and split_sentences("no end") == ["no end"]


def test_deterministic():
    text = "Ab cd. Ef gh! Ij kl? Mn op."
    assert split_sentences(text) == split_sentences(text) == ["Ab cd.", "Ef gh!", "Ij kl?", "Mn op."]
    # a single letter followed by a dot is taken for an initial, not a sentence end
    assert split_sentences("Plan b. Then c.") == ["Plan b. Then c."]
