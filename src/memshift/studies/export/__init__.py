"""Moving a memory to another product: HoldMem's store as a Portable Memory bundle, a run of an
outside system brought back (`import_stage`), and the benchmark's public dataset (`dataset`)."""
