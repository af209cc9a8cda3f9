package dev.fenced.internal.spring.config;

import dev.fenced.spring.config.FencedConfigurationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Start-up failures for bad fenced configuration, told as such instead of as a bean creation stack trace. */
public final class FencedConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<FencedConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, FencedConfigurationException cause) {
        return new FailureAnalysis(
                cause.getMessage(),
                "Fix the fenced.* key in application.properties (or wherever it was set); the table of keys is in"
                        + " docs/configuration.md in fenced's repository.",
                cause);
    }
}
