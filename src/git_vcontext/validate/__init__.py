"""Validation of vContext documents: schemas, semantic rules, history rules (PRODUCT.md)."""
