"""The plumbing between Snakemake and the package: code fingerprints (`fingerprint`), the jobs'
environment (`job_env`), the changes to Snakemake's scheduling and output look-up
(`scheduler_passes`, `output_lookup`, `snakemake_release`) and stale locks (`staleness`)."""
