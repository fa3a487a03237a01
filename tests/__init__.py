"""Tests that double as a self-check: each test name is a rule the tokenizer must keep."""
