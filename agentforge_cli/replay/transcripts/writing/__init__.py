"""What writing a transcript back shares beyond results: recorded calls migrated after a
rename (the rules, and where each format keeps a call's name and arguments)."""
