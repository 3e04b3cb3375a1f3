"""Reference modules from other libraries (``transformers``), named by the Zoo's ``Reference:`` lines."""
