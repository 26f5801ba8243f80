"""What a run produces for machines: the JSON result object and the CI gate over it."""
