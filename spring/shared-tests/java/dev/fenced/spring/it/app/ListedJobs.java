package dev.fenced.spring.it.app;

import dev.fenced.Fencing;
import org.springframework.stereotype.Component;

/** No annotation: bound to lease "listed" by {@code fenced.lease.listed.method} only, as the agent would read it. */
@Component
public class ListedJobs {

    public long run() {
        return Fencing.currentToken().orElse(-1);
    }
}
