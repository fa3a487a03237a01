"""python3 -m lab.kinds: the kinds are a library; say which command shows them."""
import sys

sys.exit('lab.kinds is the tokenizer kinds, not a lab: python3 -m lab.compare shows them')
