"""Verification with a Lean toolchain (``pybridge verify``) and its record, ``verification.json``.

``toolchain`` finds ``lake``/``lean``, checks the version against ``lean-toolchain``, runs ``lake build``
and the LeanDojo trace, and writes the record; ``record`` reads it back (``is_verified``).
"""
