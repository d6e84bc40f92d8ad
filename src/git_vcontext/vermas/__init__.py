"""VerMAS (seed 004): the kinds of file in a ``.work/`` directory, its events and projections."""
