"""Moving a memory to another product: HoldMem's store as a Portable Memory bundle."""
