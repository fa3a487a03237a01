"""python3 -m lab.plumbing: the plumbing is a library; say which command to run instead."""
import sys

sys.exit("lab.plumbing is the labs' plumbing, not a lab: try python3 -m lab.bpe_trace")
