package dev.fenced.spring.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fenced.spring.FencedAutoConfiguration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The starter's beans are all post-processed: none is created while post-processors are still being registered,
 * which Spring reports as "Bean '...' is not eligible for getting processed by all BeanPostProcessors". The lease
 * advisor is looked up by the auto-proxy creator as soon as it post-processes the starter's own post-processors;
 * what the advisor needs then must be infrastructure. Read from Spring's own report (its checker's log).
 */
class PostProcessorEligibilityTest {

    /** Spring's logger for it (a private class). */
    private static final String CHECKER =
            "org.springframework.context.support.PostProcessorRegistrationDelegate$BeanPostProcessorChecker";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(FencedAutoConfiguration.class))
            .withPropertyValues("fenced.tables=totals", "fenced.missing-tables=warn")
            .withBean(DataSource.class, TestDataSources::fresh);

    private final ListAppender<ILoggingEvent> reports = new ListAppender<>();
    private final Logger checker = (Logger) LoggerFactory.getLogger(CHECKER);

    @BeforeEach
    void listen() {
        reports.start();
        checker.addAppender(reports);
    }

    @AfterEach
    void stopListening() {
        checker.detachAppender(reports);
    }

    @Test
    void everyBeanOfTheStartersIsPostProcessedByAll() {
        runner.run(context -> {
            assertTrue(context.getStartupFailure() == null, () -> String.valueOf(context.getStartupFailure()));
            List<String> fenced = reports.list.stream().map(ILoggingEvent::getFormattedMessage)
                    .filter(m -> m.contains("fenced")).toList();
            assertTrue(fenced.isEmpty(), fenced.toString());
        });
    }
}
