"""Reading the Lean sources: the Zoo parser (``catalogue``), the claims ledger and the static audit."""
