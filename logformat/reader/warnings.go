package reader

import "github.com/agentstat/agentstat/logformat/jsonscan"

// Warning kinds, counted in inputs.warnings.
const (
	WarnTypeMismatch       = jsonscan.WarnTypeMismatch // a field held a JSON type the reader cannot use; it was ignored
	WarnBadNumber          = jsonscan.WarnBadNumber    // a number out of float64 range or a non-numeric string
	WarnBadTimestamp       = jsonscan.WarnBadTimestamp // a timestamp in no known spelling
	WarnNegativeDuration   = "negative_duration"       // an end before its start, or a negative duration; dropped
	WarnImpossibleDuration = "impossible_duration"     // a duration over ten years; dropped
	WarnUnknownStatus      = "unknown_status"          // a run or tool status word outside the known list
	WarnOtherStepStatus    = "other_step_status"       // a step status word outside the list: counted as other
	WarnMissingStatus      = "missing_step_status"
	WarnCountMismatch      = "count_mismatch"   // a summary counter disagrees with the entries
	WarnInvalidLine        = "invalid_line"     // a JSONL line (or trailing value) that is not valid JSON
	WarnUnknownLine        = "unknown_line"     // a JSONL line that matches no format
	WarnDuplicateEvent     = "duplicate_event"  // an exact repeat of an earlier event, dropped
	WarnDuplicateRunID     = "duplicate_run_id" // two runs of one format share an id
	WarnQualityMismatch    = "quality_mismatch" // a producer's quality_average disagrees with its scores
	WarnTruncatedStream    = "truncated_stream" // a compressed JSONL file ends mid-stream; the lines before the cut were read
	WarnPriceFallback      = "price_fallback"   // tokens of a kind their model has no price for, priced at a kin's (counted as runs are priced)
	WarnRunsLost           = "runs_lost"        // a file's runs held on a scratch file until its end could not all be read back
)
