"""What a run produces for machines: the JSON result object, the CI gate over it, and the glossary backlog
it suggests."""
