"""Language processing: tokens and lemmas, the normalisation that matching uses, language tags, and
the sanity check that a target segment translates its source."""
