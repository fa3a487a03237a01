"""Labs: small scripts that look inside the tokenizer. Run each as python3 -m lab.NAME."""
