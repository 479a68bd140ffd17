// The libmosquitto client lives here (issue 2).
