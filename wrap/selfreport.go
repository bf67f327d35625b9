package wrap

// SelfReportInstruction asks the model for its own estimate of context use,
// in a form the Stop hook parses ([ctx: ~NN%]) to compare with the real
// token count.
const SelfReportInstruction = "At the very end of every reply, on its own line, state how full you estimate " +
	"your context window is, exactly in the form [ctx: ~NN%] (for example [ctx: ~42%])."
