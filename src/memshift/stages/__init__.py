"""The data stages over files, one module each, so each stage's code fingerprint covers only
the code it runs."""
