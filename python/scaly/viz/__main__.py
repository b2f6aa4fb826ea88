"""python3 -m scaly.viz: the scaly_viz command."""
from .serve import main

main()
