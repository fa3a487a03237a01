"""python3 -m lab.fast: the engine is a library; say which command runs it."""
import sys

sys.exit('lab.fast is the engine, not a lab: python3 -m lab.fast_bpe trains with it')
