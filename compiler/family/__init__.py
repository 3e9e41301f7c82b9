"""What every operator family is built on: tensor descriptors (`tensor`), validation helpers
(`checks`), IR building blocks (`lowering`), checked mode's kernels (`index_check`), typed
literals (`literal`) and the registry the compile driver dispatches through (`registry`)."""
