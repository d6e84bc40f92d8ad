"""Text <-> data for the three encodings: style-keeping JSON, TRON (both dialects), JSONL."""
