"""The CLI's sub-commands, one module per verb."""
