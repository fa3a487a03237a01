"""python3 -m lab.contract: the contract is a library; say which command checks a file by it."""
import sys

sys.exit('lab.contract is a library, not a lab: python3 -m lab.check checks a file by it')
