package dev.fenced.cli;

import java.util.List;

final class AuditCommand implements Command {
    public String name() { return "check"; }
    public String summary() { return "x"; }
    public String description() { return "x"; }
    public List<Option> options() { return List.of(); }
    public int run(Invocation inv) { return 0; }
}
