# A workflow of the main study's shape with none of its work: 20 worlds of 8 chained jobs, each
# writing PER_JOB files, and two aggregates that name every file (the report and the run
# manifest). Its no-op dry run is what Snakemake alone takes for that many tracked files
# (docs/benchmarks-study.md, "The no-op dry run"):
#
#   cd "$(mktemp -d)" && S=/path/to/memshift/src/memshift_tools/bench/dry_run_shape.smk
#   snakemake -s $S --cores 2 --quiet all --config per_job=40      # build it once
#   time snakemake -s $S --cores 2 --quiet all -n --config per_job=40
PER_JOB = int(config.get("per_job", 1))
WORLDS = range(20)
STAGES = [f"s{i}" for i in range(8)]


def outputs(stage, world):
    return [f"out/w{world}/{stage}/f{k}.txt" for k in range(PER_JOB)]


EVERY_FILE = [f for w in WORLDS for s in STAGES for f in outputs(s, w)]


rule all:
    input:
        "out/manifest.txt",


for i, stage in enumerate(STAGES):

    rule:
        name:
            stage
        input:
            (lambda wc, i=i: outputs(STAGES[i - 1], wc.world)) if i else [],
        output:
            [f"out/w{{world}}/{stage}/f{k}.txt" for k in range(PER_JOB)],
        shell:
            "for f in {output}; do echo x > $f; done"


rule report:
    input:
        EVERY_FILE,
    output:
        "out/report.txt",
    shell:
        "echo report > {output}"


rule manifest:
    input:
        EVERY_FILE,
        "out/report.txt",
    output:
        "out/manifest.txt",
    shell:
        "echo manifest > {output}"
